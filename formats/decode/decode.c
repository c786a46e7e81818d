/*
 * decode.c — AS-SAFE tables that name signals, si_codes, Mach exceptions and
 * termination codes, and decode the EXC_RESOURCE / EXC_GUARD code layouts.
 *
 * The crash handler calls into this file, so it touches only static data,
 * strcmp/strlen and the hand-written number formatting of out.c.  Facts come
 * from ../shared/docs/apple-crash-format.md §13–§14 and the Linux uapi headers.
 */
#include "decode.h"

#include <string.h>
#ifdef __linux__
#include <signal.h>
#endif

#include "model.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Signals ------------------------------------------------------------- */

/*
 * One row per signal: name, Linux number, Darwin number (0: the OS has no such
 * signal), Darwin strsignal wording, Exception Type (§13.2), meaning.  The
 * Linux numbers are the generic (x86_64/aarch64) ones, written out rather than
 * taken from <signal.h> so a report reads the same whichever host decodes it.
 * SIGSTKFLT and SIGPWR do not exist on Darwin; their text is glibc's wording.
 */
#define PM_SIGNALS(X) \
	X(SIGHUP, 1, 1, "Hangup", "EXC_CRASH", \
	  "Its controlling terminal went away, or another process asked it to reload.") \
	X(SIGINT, 2, 2, "Interrupt", "EXC_CRASH", \
	  "Someone pressed Ctrl-C, or another process asked it to stop.") \
	X(SIGQUIT, 3, 3, "Quit", "EXC_CRASH", \
	  "Someone pressed Ctrl-\\, or a process with authority over it told it to quit.") \
	X(SIGILL, 4, 4, "Illegal instruction", "EXC_BAD_INSTRUCTION", \
	  "The CPU met an instruction it cannot run: usually a deliberate trap " \
	  "(__builtin_trap(), ud2, a Swift runtime check), more rarely code built for " \
	  "a newer CPU or a jump into data.") \
	X(SIGTRAP, 5, 5, "Trace/BPT trap", "EXC_BREAKPOINT", \
	  "It hit a trap instruction: __builtin_trap(), a Swift runtime trap " \
	  "(nil unwrapped, index out of range, fatalError) or a failed assertion.") \
	X(SIGABRT, 6, 6, "Abort trap", "EXC_CRASH", \
	  "It called abort(): usually a failed assertion, an uncaught C++ or " \
	  "Objective-C exception, or heap corruption the C library detected.") \
	X(SIGEMT, 0, 7, "EMT trap", "EXC_EMULATION", \
	  "The CPU trapped on an instruction that must be emulated.") \
	X(SIGFPE, 8, 8, "Floating point exception", "EXC_ARITHMETIC", \
	  "An arithmetic instruction trapped: most often an integer division by zero " \
	  "(or INT_MIN divided by -1).") \
	X(SIGKILL, 9, 9, "Killed", "EXC_CRASH", \
	  "The system or another process killed it; this signal cannot be caught, so " \
	  "the termination reason says who and why.") \
	X(SIGBUS, 7, 10, "Bus error", "EXC_BAD_ACCESS", \
	  "Mapped memory could not be accessed: a misaligned access, or a mapped file " \
	  "that shrank or could not be read.") \
	X(SIGSEGV, 11, 11, "Segmentation fault", "EXC_BAD_ACCESS", \
	  "It read, wrote or jumped to memory that is not mapped or does not allow " \
	  "that access: a bad pointer.") \
	X(SIGSYS, 31, 12, "Bad system call", "EXC_CRASH", \
	  "It made a system call that is not allowed (a seccomp filter, or a number " \
	  "the kernel does not know).") \
	X(SIGPIPE, 13, 13, "Broken pipe", "EXC_CRASH", \
	  "It wrote to a pipe or socket whose other end was closed.") \
	X(SIGALRM, 14, 14, "Alarm clock", "EXC_CRASH", \
	  "A timer set with alarm() or setitimer() expired and nothing handled it.") \
	X(SIGTERM, 15, 15, "Terminated", "EXC_CRASH", \
	  "Another process, or a system shutdown, asked it to terminate.") \
	X(SIGSTKFLT, 16, 0, "Stack fault", "EXC_CRASH", \
	  "A coprocessor stack fault was reported; modern kernels never send it.") \
	X(SIGURG, 23, 16, "Urgent I/O condition", "EXC_CRASH", \
	  "Urgent (out-of-band) data arrived on a socket.") \
	X(SIGSTOP, 19, 17, "Suspended (signal)", "EXC_CRASH", \
	  "It was stopped by a signal that cannot be caught.") \
	X(SIGTSTP, 20, 18, "Suspended", "EXC_CRASH", \
	  "Someone pressed Ctrl-Z to stop it.") \
	X(SIGCONT, 18, 19, "Continued", "EXC_CRASH", \
	  "It was resumed after being stopped.") \
	X(SIGCHLD, 17, 20, "Child exited", "EXC_CRASH", \
	  "One of its child processes stopped or exited.") \
	X(SIGTTIN, 21, 21, "Stopped (tty input)", "EXC_CRASH", \
	  "It read from its terminal while in the background.") \
	X(SIGTTOU, 22, 22, "Stopped (tty output)", "EXC_CRASH", \
	  "It wrote to its terminal while in the background.") \
	X(SIGIO, 29, 23, "I/O possible", "EXC_CRASH", \
	  "A descriptor set up for signal-driven I/O became ready.") \
	X(SIGXCPU, 24, 24, "Cputime limit exceeded", "EXC_CRASH", \
	  "It used more CPU time than its RLIMIT_CPU allows.") \
	X(SIGXFSZ, 25, 25, "Filesize limit exceeded", "EXC_CRASH", \
	  "It tried to grow a file beyond its RLIMIT_FSIZE.") \
	X(SIGVTALRM, 26, 26, "Virtual timer expired", "EXC_CRASH", \
	  "A virtual-time interval timer expired and nothing handled it.") \
	X(SIGPROF, 27, 27, "Profiling timer expired", "EXC_CRASH", \
	  "A profiling timer expired and nothing handled it.") \
	X(SIGWINCH, 28, 28, "Window size changes", "EXC_CRASH", \
	  "Its terminal window changed size.") \
	X(SIGINFO, 0, 29, "Information request", "EXC_CRASH", \
	  "Someone pressed Ctrl-T to ask for a status report.") \
	X(SIGPWR, 30, 0, "Power failure", "EXC_CRASH", \
	  "The system reported a power failure.") \
	X(SIGUSR1, 10, 30, "User defined signal 1", "EXC_CRASH", \
	  "A signal the application reserves for its own use arrived and nothing handled it.") \
	X(SIGUSR2, 12, 31, "User defined signal 2", "EXC_CRASH", \
	  "A signal the application reserves for its own use arrived and nothing handled it.")

#define LINUX_ROW(name, lnx, dar, text, mach, meaning) { lnx, #name, text, mach, meaning },
#define DARWIN_ROW(name, lnx, dar, text, mach, meaning) { dar, #name, text, mach, meaning },
#define LINUX_ENUM(name, lnx, dar, text, mach, meaning) LINUX_##name = lnx,

/* Rows whose number is 0 stand for signals the OS lacks: lookups skip them. */
static const pm_signal_info linux_signals[] = { PM_SIGNALS(LINUX_ROW) };
static const pm_signal_info darwin_signals[] = { PM_SIGNALS(DARWIN_ROW) };

#ifdef __linux__
/* The crash handler names host signals with this table: a port whose kernel
 * numbers signals differently (mips, sparc, alpha) must not build silently. */
enum { PM_SIGNALS(LINUX_ENUM) };
_Static_assert(LINUX_SIGBUS == SIGBUS && LINUX_SIGSYS == SIGSYS && LINUX_SIGUSR1 == SIGUSR1 &&
               LINUX_SIGSEGV == SIGSEGV && LINUX_SIGCHLD == SIGCHLD && LINUX_SIGIO == SIGIO,
               "Linux signal table does not match <signal.h>");
#endif

static const pm_signal_info *
signal_table(pm_os os, size_t *count)
{
	if (os == PM_OS_LINUX) {
		*count = COUNT(linux_signals);
		return linux_signals;
	}
	*count = COUNT(darwin_signals);
	return darwin_signals;
}

const pm_signal_info *
pmi_signal_by_number(pm_os os, int number)
{
	size_t n;
	const pm_signal_info *t = signal_table(os, &n);
	for (size_t i = 0; i < n; i++)
		if (t[i].number != 0 && t[i].number == number)
			return &t[i];
	return NULL;
}

const pm_signal_info *
pmi_signal_by_name(pm_os os, const char *name)
{
	if (!name)
		return NULL;
	size_t n;
	const pm_signal_info *t = signal_table(os, &n);
	for (size_t i = 0; i < n; i++)
		if (t[i].number != 0 && strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

bool
pmi_signal_has_address(pm_os os, int signo)
{
	static const char fault_signals[][10] = {
		"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP",
	};
	const pm_signal_info *s = pmi_signal_by_number(os, signo);
	if (!s)
		return false;
	for (size_t i = 0; i < COUNT(fault_signals); i++)
		if (strcmp(s->name, fault_signals[i]) == 0)
			return true;
	return false;
}

/* ---- Linux si_code ------------------------------------------------------- */

/*
 * Subtypes follow §13.4's in-process mapping.  Decisions where it is silent or
 * arch-specific:
 *   BUS_ADRALN     -> EXC_ARM_DA_ALIGN, the only Apple name that means "misaligned
 *                     data access"; on x86_64 Linux raises it only with EFLAGS.AC
 *                     set, so the arm64 spelling is what a real report will show.
 *   BUS_MCEERR_AR  -> KERN_MEMORY_ERROR: the data at the address could not be
 *                     returned (hardware memory error consumed by the access).
 *   BUS_MCEERR_AO, SEGV_BNDERR, SEGV_PKUERR, the SPARC ADI and arm64 MTE codes,
 *   SEGV_CPERR, and every ILL/FPE/TRAP/SYS code have no kern_return_t
 *   equivalent: "", and the writer prints the si_code name instead.
 * Generic codes (signo 0) come last so a signal-specific row wins a lookup.
 */
static const pm_si_code_info si_codes[] = {
	{ 4, 1, "ILL_ILLOPC", "", "illegal opcode" },
	{ 4, 2, "ILL_ILLOPN", "", "illegal operand" },
	{ 4, 3, "ILL_ILLADR", "", "illegal addressing mode" },
	{ 4, 4, "ILL_ILLTRP", "", "illegal trap" },
	{ 4, 5, "ILL_PRVOPC", "", "privileged opcode" },
	{ 4, 6, "ILL_PRVREG", "", "privileged register" },
	{ 4, 7, "ILL_COPROC", "", "coprocessor error" },
	{ 4, 8, "ILL_BADSTK", "", "internal stack error" },
	{ 4, 9, "ILL_BADIADDR", "", "unimplemented instruction address" },
	{ 8, 1, "FPE_INTDIV", "", "integer division by zero" },
	{ 8, 2, "FPE_INTOVF", "", "integer overflow" },
	{ 8, 3, "FPE_FLTDIV", "", "floating-point division by zero" },
	{ 8, 4, "FPE_FLTOVF", "", "floating-point overflow" },
	{ 8, 5, "FPE_FLTUND", "", "floating-point underflow" },
	{ 8, 6, "FPE_FLTRES", "", "floating-point inexact result" },
	{ 8, 7, "FPE_FLTINV", "", "invalid floating-point operation" },
	{ 8, 8, "FPE_FLTSUB", "", "subscript out of range" },
	{ 8, 14, "FPE_FLTUNK", "", "undiagnosed floating-point exception" },
	{ 8, 15, "FPE_CONDTRAP", "", "trap on condition" },
	{ 11, 1, "SEGV_MAPERR", "KERN_INVALID_ADDRESS", "address not mapped" },
	{ 11, 2, "SEGV_ACCERR", "KERN_PROTECTION_FAILURE", "mapping does not allow this access" },
	{ 11, 3, "SEGV_BNDERR", "", "failed address bound check" },
	{ 11, 4, "SEGV_PKUERR", "", "failed protection key check" },
	{ 11, 5, "SEGV_ACCADI", "", "ADI not enabled for the mapping" },
	{ 11, 6, "SEGV_ADIDERR", "", "disrupting ADI (memory corruption detection) error" },
	{ 11, 7, "SEGV_ADIPERR", "", "precise ADI (memory corruption detection) error" },
	{ 11, 8, "SEGV_MTEAERR", "", "asynchronous memory tagging (MTE) error" },
	{ 11, 9, "SEGV_MTESERR", "", "synchronous memory tagging (MTE) error" },
	{ 11, 10, "SEGV_CPERR", "", "control-flow protection (shadow stack) fault" },
	{ 7, 1, "BUS_ADRALN", "EXC_ARM_DA_ALIGN", "invalid address alignment" },
	{ 7, 2, "BUS_ADRERR", "KERN_PROTECTION_FAILURE",
	  "no backing for the address (e.g. past the end of a mapped file)" },
	{ 7, 3, "BUS_OBJERR", "KERN_MEMORY_ERROR", "object-specific hardware error" },
	{ 7, 4, "BUS_MCEERR_AR", "KERN_MEMORY_ERROR", "hardware memory error consumed by this access" },
	{ 7, 5, "BUS_MCEERR_AO", "", "hardware memory error detected in a page, not yet consumed" },
	{ 5, 1, "TRAP_BRKPT", "", "breakpoint" },
	{ 5, 2, "TRAP_TRACE", "", "trace trap (single step)" },
	{ 5, 3, "TRAP_BRANCH", "", "taken-branch trap" },
	{ 5, 4, "TRAP_HWBKPT", "", "hardware breakpoint or watchpoint" },
	{ 5, 5, "TRAP_UNK", "", "undiagnosed trap" },
	{ 5, 6, "TRAP_PERF", "", "perf event with sigtrap set" },
	{ 31, 1, "SYS_SECCOMP", "", "system call refused by a seccomp filter" },
	{ 31, 2, "SYS_USER_DISPATCH", "", "system call caught by syscall user dispatch" },
	{ 0, 0, "SI_USER", "", "sent by kill() or raise()" },
	{ 0, 0x80, "SI_KERNEL", "", "sent by the kernel" },
	{ 0, -1, "SI_QUEUE", "", "sent by sigqueue()" },
	{ 0, -2, "SI_TIMER", "", "a POSIX timer expired" },
	{ 0, -3, "SI_MESGQ", "", "a message arrived on a POSIX message queue" },
	{ 0, -4, "SI_ASYNCIO", "", "an asynchronous I/O request completed" },
	{ 0, -5, "SI_SIGIO", "", "queued SIGIO" },
	{ 0, -6, "SI_TKILL", "", "sent by tkill() or tgkill(), as abort() does" },
};

const pm_si_code_info *
pmi_si_code_by_number(int signo, int code)
{
	for (size_t i = 0; i < COUNT(si_codes); i++) {
		const pm_si_code_info *c = &si_codes[i];
		if (c->code == code && (c->signo == signo || c->signo == 0))
			return c;
	}
	return NULL;
}

const pm_si_code_info *
pmi_si_code_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < COUNT(si_codes); i++)
		if (strcmp(si_codes[i].name, name) == 0)
			return &si_codes[i];
	return NULL;
}

/* ---- Mach exceptions ----------------------------------------------------- */

static const pm_mach_exc_info mach_excs[] = {
	{ 1, "EXC_BAD_ACCESS", "Memory at the address could not be accessed." },
	{ 2, "EXC_BAD_INSTRUCTION", "The CPU met an illegal or undefined instruction." },
	{ 3, "EXC_ARITHMETIC", "An arithmetic instruction faulted (division by zero, overflow)." },
	{ 4, "EXC_EMULATION", "The CPU trapped on an instruction that must be emulated." },
	{ 5, "EXC_SOFTWARE", "Software raised the exception (bad system call, broken pipe, abort)." },
	{ 6, "EXC_BREAKPOINT", "A trap or breakpoint instruction ran, or a trace trap fired." },
	{ 7, "EXC_SYSCALL", "A system call raised the exception." },
	{ 8, "EXC_MACH_SYSCALL", "A Mach system call raised the exception." },
	{ 9, "EXC_RPC_ALERT", "An RPC alert was raised." },
	{ 10, "EXC_CRASH", "The process ended abnormally; the signal says how." },
	{ 11, "EXC_RESOURCE", "The process went over a resource limit (CPU, memory, wakeups, I/O)." },
	{ 12, "EXC_GUARD",
	  "The process violated a guarded resource, most often a guarded file descriptor." },
	{ 13, "EXC_CORPSE_NOTIFY", "The process became a corpse so a report could be written." },
};

const pm_mach_exc_info *
pmi_mach_exc_by_number(int number)
{
	for (size_t i = 0; i < COUNT(mach_excs); i++)
		if (mach_excs[i].number == number)
			return &mach_excs[i];
	return NULL;
}

const pm_mach_exc_info *
pmi_mach_exc_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < COUNT(mach_excs); i++)
		if (strcmp(mach_excs[i].name, name) == 0)
			return &mach_excs[i];
	return NULL;
}

/* ---- Named codes (shared by the bad-access and namespace tables) --------- */

/* Codes equal to `skip` are found by name only. */
static const pm_code_info *
code_by_number(const pm_code_info *t, size_t n, uint64_t code, uint64_t skip)
{
	if (code == skip)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code)
			return &t[i];
	return NULL;
}

static const pm_code_info *
code_by_name(const pm_code_info *t, size_t n, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

/*
 * kern_return_t values first: EXC_I386_INVTSSFLT shares 10 with
 * KERN_MEMORY_ERROR, and a number lookup must give the kern_return_t name
 * (x86 Darwin reports the trap number separately, as Trap Number).
 */
static const pm_code_info bad_access_codes[] = {
	{ 1, "KERN_INVALID_ADDRESS", "The address is not mapped." },
	{ 2, "KERN_PROTECTION_FAILURE", "The address is mapped but its protection forbids the access "
	                                "(read-only, not executable, or a guard page)." },
	{ 9, "KERN_MEMORY_FAILURE", "The memory object behind the address was destroyed." },
	{ 10, "KERN_MEMORY_ERROR", "The memory could not supply its data (a mapped file shrank, "
	                           "or its device failed)." },
	{ 50, "KERN_CODESIGN_ERROR", "The page failed its code-signature check." },
	{ 0x101, "EXC_ARM_DA_ALIGN", "A data access was misaligned." },
	{ 0x102, "EXC_ARM_DA_DEBUG", "A watchpoint fired." },
	{ 0x103, "EXC_ARM_SP_ALIGN", "The stack pointer was misaligned." },
	{ 0x104, "EXC_ARM_SWP", "A SWP instruction was used." },
	{ 0x105, "EXC_ARM_PAC_FAIL", "A pointer failed its pointer-authentication check." },
	{ 13, "EXC_I386_GPFLT", "General protection fault: often a non-canonical address." },
	{ 14, "EXC_I386_PGFLT", "Page fault." },
	{ 17, "EXC_I386_ALIGNFLT", "Alignment fault." },
	{ 12, "EXC_I386_STKFLT", "Stack segment fault." },
	{ 11, "EXC_I386_SEGNPFLT", "Segment not present." },
	{ 10, "EXC_I386_INVTSSFLT", "Invalid task state segment." },
};

const pm_code_info *
pmi_bad_access_code_by_number(uint64_t code)
{
	return code_by_number(bad_access_codes, COUNT(bad_access_codes), code, 0);
}

const pm_code_info *
pmi_bad_access_code_by_name(const char *name)
{
	return code_by_name(bad_access_codes, COUNT(bad_access_codes), name);
}

#define NOT_NUMBERED UINT64_MAX

/* OS_REASON_* of xnu bsd/sys/reason.h, plus the names reports print without a number. */
static const pm_code_info namespaces[] = {
	{ 1, "JETSAM", "Killed to free memory (memory pressure or over its memory limit)." },
	{ 2, "SIGNAL", "Ended by a signal; the code is the signal number." },
	{ 3, "CODESIGNING", "Killed because a code signature was invalid." },
	{ 4, "HANGTRACER", "Killed by the hang tracer after a long hang." },
	{ 5, "TEST", "Killed by a test harness." },
	{ 6, "DYLD", "The dynamic loader failed (missing library or symbol)." },
	{ 7, "LIBXPC", "Killed by libxpc after XPC misuse." },
	{ 8, "OBJC", "Killed by the Objective-C runtime." },
	{ 9, "EXEC", "exec() failed to start the program." },
	{ 10, "SPRINGBOARD", "Killed by SpringBoard (app lifecycle, watchdog)." },
	{ 11, "TCC", "Killed for a privacy (TCC) violation." },
	{ 12, "REPORTCRASH", "Killed by ReportCrash." },
	{ 13, "COREANIMATION", "Killed by Core Animation." },
	{ 14, "AGGREGATED", "Killed for several reasons at once." },
	{ 15, "RUNNINGBOARD", "Killed by RunningBoard (process lifecycle and assertions)." },
	{ 15, "ASSERTIOND", "Killed by assertiond, the old name of RunningBoard." },
	{ 16, "SKYWALK", "Killed by the Skywalk networking stack." },
	{ 17, "SETTINGS", "Killed after a settings change." },
	{ 18, "LIBSYSTEM", "Killed by libSystem." },
	{ 19, "FOUNDATION", "Killed by Foundation." },
	{ 20, "WATCHDOG", "Killed by a watchdog." },
	{ 21, "METAL", "Killed by Metal (GPU misuse or GPU hang)." },
	{ 22, "WATCHKIT", "Killed by WatchKit." },
	{ 23, "GUARD", "Killed for violating a guarded resource." },
	{ 24, "ANALYTICS", "Killed by the analytics subsystem." },
	{ 25, "SANDBOX", "Killed by the sandbox." },
	{ 26, "SECURITY", "Killed for a security violation." },
	{ 27, "ENDPOINTSECURITY", "Killed by an Endpoint Security client." },
	{ 28, "PAC_EXCEPTION", "Killed after a pointer-authentication failure." },
	{ 29, "BLUETOOTH_CHIP", "Killed after a Bluetooth chip failure." },
	{ 30, "PORT_SPACE", "Killed for exhausting its Mach port space." },
	{ 31, "WEBKIT", "Killed by WebKit." },
	{ 32, "BACKLIGHTSERVICES", "Killed by BacklightServices." },
	{ 33, "MEDIA", "Killed by the media stack." },
	{ 34, "ROSETTA", "Killed by Rosetta translation." },
	{ 35, "LIBIGNITION", "Killed by libignition during early boot." },
	{ 36, "BOOTMOUNT", "Killed by the boot-time mounter." },
	{ NOT_NUMBERED, "FRONTBOARD", "Killed by FrontBoard (app lifecycle, watchdog)." },
	{ NOT_NUMBERED, "CAROUSEL", "Killed by Carousel, the watchOS app manager." },
};

const pm_code_info *
pmi_namespace_by_number(uint64_t id)
{
	return code_by_number(namespaces, COUNT(namespaces), id, NOT_NUMBERED);
}

const pm_code_info *
pmi_namespace_by_name(const char *name)
{
	return code_by_name(namespaces, COUNT(namespaces), name);
}

/* ---- Magic termination codes (§14.2) ------------------------------------- */

static const pm_magic_code magic_codes[] = {
	{ 0x8badf00d, "ate bad food",
	  "The watchdog killed the app because its main thread was blocked too long "
	  "(launch, resume, suspend, exit or a UI update took too long).",
	  "Synchronous networking, heavy work or a lock wait on the main thread; look at "
	  "what the main thread is doing in the report." },
	{ 0xdead10cc, "dead lock",
	  "The app was killed because it held a file or SQLite lock in a shared container "
	  "while being suspended.",
	  "Finish or release file and database locks before going to the background, or "
	  "hold a background task while they are held." },
	{ 0xbaaaaaad, "bad",
	  "Not a crash: a stackshot of the whole system, taken on request.",
	  "The user pressed the stackshot button combination, or the system asked for one." },
	{ 0xbad22222, "bad too (2) many",
	  "The app was killed for being resumed or woken too often.",
	  "A VoIP or background networking app woke up too frequently; batch the work." },
	{ 0xc00010ff, "cool off",
	  "The app was killed because the device overheated.",
	  "Usually heavy sustained CPU or GPU use, possibly with the device already hot; "
	  "see the ThermalInfo lines." },
	{ 0xdeadfa11, "dead fall",
	  "The user force-quit the app.",
	  "Often a sign the app looked frozen to the user; check for main-thread hangs." },
	{ 0x2bad45ec, "too bad for security",
	  "The app was killed for a security violation.",
	  "For example drawing on screen while the device is locked." },
	{ 0xbada5e47, "bad assert(ion)",
	  "The app was killed for holding too many background-task assertions.",
	  "Background tasks that are started but never ended; match every begin with an end." },
	{ 0xc51bad01, "",
	  "watchOS killed a background task for using too much CPU.",
	  "Do less work per background refresh." },
	{ 0xc51bad02, "",
	  "watchOS killed a background task that did not finish within its time allowance.",
	  "Do less work per background refresh, or finish it sooner." },
	{ 0xc51bad03, "",
	  "watchOS killed a background task that did not finish in time while the system "
	  "was busy overall.",
	  "Not necessarily the app's fault; reduce the work done in the background." },
	{ 0x2182bad2, "",
	  "A background task did not complete in time.",
	  "End background tasks promptly, including on their expiration handler." },
	{ 0x2182bad3, "",
	  "A background URL session did not complete in time.",
	  "Call the session's completion handler promptly." },
	{ 0x2182bad4, "",
	  "A background fetch did not complete in time.",
	  "Call the fetch completion handler promptly." },
	{ 0xbaadca11, "bad call",
	  "The app was killed for not reporting a VoIP push notification to CallKit.",
	  "Report every PushKit VoIP push as a call to CallKit right away." },
	{ 0xbaddd15c, "bad disc",
	  "The app was killed so caches could be deleted to reclaim disk space.",
	  "The device ran low on storage; not a bug in the app." },
	{ 0xd00d2bad, "dude, too bad",
	  "The app was killed for excessive use of key system resources.",
	  "Look for runaway use of system services." },
};

const pm_magic_code *
pmi_magic_code_lookup(uint64_t code)
{
	for (size_t i = 0; i < COUNT(magic_codes); i++)
		if (magic_codes[i].code == code)
			return &magic_codes[i];
	return NULL;
}

const pm_magic_code *
pmi_magic_codes(size_t *count)
{
	*count = COUNT(magic_codes);
	return magic_codes;
}

/* ---- EXC_RESOURCE / EXC_GUARD code layouts (§13.6, §13.7) ----------------- */

static uint64_t
bits(uint64_t v, unsigned shift, unsigned width)
{
	return (v >> shift) & ((UINT64_C(1) << width) - 1);
}

/* Top three bits: the resource type or guard type. */
static unsigned
code_type(uint64_t code)
{
	return (unsigned)(code >> 61);
}

static void
put_text(char *buf, size_t cap, const char *s)
{
	pm_out o;
	pmi_out_init_buf(&o, buf, cap);
	pmi_out_str(&o, s);
}

/*
 * One row per resource type and flavor.  Monitors (interval_bits != 0) print
 * "(Limit L<unit>) Observed O<unit> over I secs"; high-water marks print
 * "(Limit L<unit>) <tail>".  The observed value is the subcode's low bits,
 * as wide as the limit.
 */
typedef struct resource_kind {
	uint8_t type, flavor;
	char subtype[12];
	char unit[12];
	uint8_t limit_bits;
	uint8_t interval_shift, interval_bits;
	char tail[40];
} resource_kind;

static const resource_kind resource_kinds[] = {
	{ 1, 1, "CPU", "%", 7, 7, 25, "" },
	{ 1, 2, "CPU_FATAL", "%", 7, 7, 25, "" },
	{ 2, 1, "WAKEUPS", "/sec", 20, 20, 12, "" },
	{ 3, 1, "MEMORY", " MB", 13, 0, 0, "Crossed High Water Mark" },
	{ 3, 2, "MEMORY", " MB", 13, 0, 0, "Crossed Diagnostic Memory Limit" },
	{ 4, 1, "IO", " MB", 15, 15, 17, "" },
	{ 4, 2, "IO", " MB", 15, 15, 17, "" },
	{ 5, 1, "THREADS", " threads", 15, 0, 0, "Crossed High Water Mark" },
	{ 6, 1, "PORT_SPACE", " ports", 24, 0, 0, "Port Space Full" },
};

static void
put_amount(pm_out *o, uint64_t v, const char *unit)
{
	pmi_out_u64(o, v);
	pmi_out_str(o, unit);
}

bool
pmi_decode_exc_resource(uint64_t code, uint64_t subcode, char *subtype, size_t subtype_cap,
                       char *message, size_t message_cap)
{
	unsigned type = code_type(code), flavor = (unsigned)bits(code, 58, 3);
	const resource_kind *k = NULL;
	for (size_t i = 0; i < COUNT(resource_kinds) && !k; i++)
		if (resource_kinds[i].type == type && resource_kinds[i].flavor == flavor)
			k = &resource_kinds[i];
	if (!k)
		return false;
	put_text(subtype, subtype_cap, k->subtype);
	pm_out o;
	pmi_out_init_buf(&o, message, message_cap);
	pmi_out_str(&o, "(Limit ");
	put_amount(&o, bits(code, 0, k->limit_bits), k->unit);
	pmi_out_str(&o, ") ");
	if (k->interval_bits == 0) {
		pmi_out_str(&o, k->tail);
		return true;
	}
	pmi_out_str(&o, "Observed ");
	put_amount(&o, bits(subcode, 0, k->limit_bits), k->unit);
	pmi_out_str(&o, " over ");
	pmi_out_u64(&o, bits(code, k->interval_shift, k->interval_bits));
	pmi_out_str(&o, " secs");
	return true;
}

typedef struct flag_name {
	uint32_t bit;
	char name[12];
} flag_name;

/* kGUARD_EXC_* of sys/guarded.h, as the Exception Message spells them. */
static const flag_name fd_guard_flavors[] = {
	{ 1, "CLOSE" }, { 2, "DUP" }, { 4, "NOCLOEXEC" }, { 8, "SOCKET_IPC" },
	{ 16, "FILEPORT" }, { 32, "MISMATCH" }, { 64, "WRITE" },
};

/*
 * Message: "<flavor> on <target noun> <target>, <subcode noun> 0x<subcode>".
 * Only FD guards have documented flavor names; the others print the flavor
 * number ("flavor 0x1").  The wording beyond FD guards is ours (§13.7 gives
 * the fields, not Apple's text).
 */
typedef struct guard_kind {
	unsigned type;
	char name[24];
	char target[20];         /* "": the target field is unused */
	char payload[12];
	bool fd_flavors;         /* the flavor bits are fd_guard_flavors */
} guard_kind;

static const guard_kind guard_kinds[] = {
	{ 1, "GUARD_TYPE_MACH_PORT", "mach port", "payload", false },
	{ 2, "GUARD_TYPE_FD", "file descriptor", "guard", true },
	{ 3, "GUARD_TYPE_USER", "namespace", "reason", false },
	{ 4, "GUARD_TYPE_VN", "vnode of pid", "guard", false },
	{ 5, "GUARD_TYPE_VIRT_MEMORY", "", "offset", false },
	{ 6, "GUARD_TYPE_REJECTED_SC", "system call", "payload", false },
};

/* Named flavor bits joined by '|'; bits without a name as "flavor 0x..". */
static void
put_flavor(pm_out *o, const guard_kind *g, uint32_t flavor)
{
	uint32_t left = flavor;
	const char *sep = "";
	for (size_t i = 0; g->fd_flavors && i < COUNT(fd_guard_flavors); i++) {
		if (!(left & fd_guard_flavors[i].bit))
			continue;
		pmi_out_str(o, sep);
		pmi_out_str(o, fd_guard_flavors[i].name);
		left &= ~fd_guard_flavors[i].bit;
		sep = "|";
	}
	if (left != 0 || flavor == 0) {
		pmi_out_str(o, sep);
		pmi_out_str(o, "flavor ");
		pmi_out_0x(o, left, 0);
	}
}

bool
pmi_decode_exc_guard(uint64_t code, uint64_t subcode, char *subtype, size_t subtype_cap,
                    char *message, size_t message_cap)
{
	unsigned type = code_type(code);
	const guard_kind *g = NULL;
	for (size_t i = 0; i < COUNT(guard_kinds) && !g; i++)
		if (guard_kinds[i].type == type)
			g = &guard_kinds[i];
	if (!g)
		return false;
	put_text(subtype, subtype_cap, g->name);
	pm_out o;
	pmi_out_init_buf(&o, message, message_cap);
	put_flavor(&o, g, (uint32_t)bits(code, 32, 29));
	if (g->target[0]) {
		pmi_out_str(&o, " on ");
		pmi_out_str(&o, g->target);
		pmi_out_ch(&o, ' ');
		pmi_out_u64(&o, bits(code, 0, 32));
	}
	pmi_out_str(&o, ", ");
	pmi_out_str(&o, g->payload);
	pmi_out_ch(&o, ' ');
	pmi_out_0x(&o, subcode, 16);
	return true;
}
