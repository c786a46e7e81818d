/*
 * java FaultLoop N — N calls on a reference that is null one time in ten,
 * each NullPointerException caught; compiled code checks for null by
 * taking SIGSEGV.  Prints the loop's nanoseconds and N.
 */
public class FaultLoop {
    static int length(String s) {
        return s.length();
    }

    public static void main(String[] args) {
        long n = Long.parseLong(args[0]);
        long caught = 0;
        long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            try {
                length(i % 10 == 0 ? null : "x");
            } catch (NullPointerException e) {
                caught++;
            }
        }
        long t1 = System.nanoTime();
        System.out.println((t1 - t0) + " " + n);
    }
}
