// Mono takes SIGSEGV on purpose: a null dereference in managed code becomes
// a NullReferenceException.
//
//   mono Runtimes.exe MODE [linked]
//
// nre     200 NullReferenceExceptions caught (exit 0: postmortem writes nothing)
// native  after them, strlen(16) through P/Invoke: a fault in native code,
//         which Mono reports as a native crash and ends with abort()
// linked  first call pm_install through P/Invoke (libpostmortem, found on
//         LD_LIBRARY_PATH): an app that embeds postmortem, after Mono's handlers
using System;
using System.Runtime.InteropServices;

class Runtimes {
    class Box { public int value = 1; }

    [DllImport("libc", EntryPoint = "strlen")]
    static extern IntPtr strlen(IntPtr p);

    [DllImport("postmortem")]
    static extern int pm_install(IntPtr config);

    static int Get(Box b) { return b.value; }

    static int Main(string[] args) {
        if (args.Length > 1 && args[1] == "linked" && pm_install(IntPtr.Zero) != 0)
            return 2;
        int caught = 0;
        for (int i = 0; i < 200; i++) {
            try { Get(i % 2 == 0 ? null : new Box()); } catch (NullReferenceException) { caught++; }
        }
        Console.WriteLine("caught " + caught);
        if (args.Length > 0 && args[0] == "native")
            strlen(new IntPtr(16));
        return 0;
    }
}
