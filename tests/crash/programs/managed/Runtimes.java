/*
 * The JVM takes SIGSEGV on purpose: an implicit null check in compiled code,
 * a stack guard page, a safepoint poll.  Each mode below is what a healthy
 * program does (exit 0, and postmortem must write nothing), or a real crash
 * (one report, of the fault, and the JVM's own crash log and exit status).
 *
 *   java -Djava.library.path=DIR Runtimes MODE [linked]
 *
 * npe        10000 NullPointerExceptions caught, in JIT-compiled code
 * overflow   StackOverflowError caught, ten times
 * safepoint  eight threads in hot compiled loops while the main thread asks
 *            for collections: each stops at its loop's safepoint poll
 * unsafe     a write at address 16 through sun.misc.Unsafe (a crash)
 * jni        a fault in native code (libpm_jni.so, a crash)
 * linked     first load libpm_jni.so, which links libpostmortem, and call
 *            pm_install through it: an app that embeds postmortem
 */
import java.lang.reflect.Field;

public class Runtimes {
    static native void install();
    static native void fault();

    static int length(String s) {
        return s.length();
    }

    static int depth(int n) {
        return n == Integer.MAX_VALUE ? n : depth(n + 1) + 1;
    }

    static void npe() {
        int caught = 0;
        for (int i = 0; i < 1_000_000; i++) {
            try {
                length(i % 100 == 0 ? null : "x");
            } catch (NullPointerException e) {
                caught++;
            }
        }
        System.out.println("caught " + caught);
    }

    static void overflow() {
        int caught = 0;
        for (int i = 0; i < 10; i++) {
            try {
                depth(0);
            } catch (StackOverflowError e) {
                caught++;
            }
        }
        System.out.println("caught " + caught);
    }

    static volatile boolean stop;
    static volatile long sink;

    /* Hot loops in compiled code, stopped at their polls for every collection. */
    static void spin() {
        long acc = 0;
        while (!stop)
            for (int i = 0; i < 100_000; i++)
                acc += i ^ (acc >>> 3);
        sink = acc;
    }

    static void safepoint() throws InterruptedException {
        Thread[] t = new Thread[8];
        for (int k = 0; k < t.length; k++) {
            t[k] = new Thread(Runtimes::spin);
            t[k].start();
        }
        long end = System.nanoTime() + 500_000_000L;
        int gcs = 0;
        while (System.nanoTime() < end) {
            System.gc();
            gcs++;
        }
        stop = true;
        for (Thread x : t)
            x.join();
        System.out.println("collections " + gcs);
    }

    static void unsafe() throws Exception {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
        System.out.println("writing at 16");
        u.putInt(16L, 42);
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 1 && args[1].equals("linked")) {
            System.loadLibrary("pm_jni");
            install();
        }
        switch (args[0]) {
            case "npe": npe(); break;
            case "overflow": overflow(); break;
            case "safepoint": safepoint(); break;
            case "unsafe": unsafe(); break;
            case "jni": System.loadLibrary("pm_jni"); fault(); break;
            default: System.exit(2);
        }
    }
}
