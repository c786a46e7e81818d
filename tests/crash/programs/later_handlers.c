/* Run under the preload library (it links no postmortem): the handlers it
 * sets after postmortem's install are what it sees, and an ignored signal
 * raised stays ignored.  Exits 0, or the number of the check that failed.
 * "signal": a SIGSEGV handler set with signal() is given a fault at 0x10
 * first, says so and exits 3 (postmortem reports the fault as it exits). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void
on_segv(int sig)
{
	(void)sig;
	static const char line[] = "signal() handler ran\n";
	(void)!write(1, line, sizeof line - 1);
	_exit(3);
}

int *volatile bad_pointer = (int *)16;

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "signal") == 0) {
		if (signal(SIGSEGV, on_segv) != SIG_DFL)
			return 1;
		return *bad_pointer;
	}
	struct sigaction seen, ignore;
	/* Without postmortem, a fatal signal's handler is SIG_DFL at start. */
	if (sigaction(SIGSEGV, NULL, &seen) != 0 || seen.sa_handler != SIG_DFL || (seen.sa_flags & SA_SIGINFO))
		return 1;
	memset(&ignore, 0, sizeof ignore);
	ignore.sa_handler = SIG_IGN;
	if (sigaction(SIGTRAP, &ignore, NULL) != 0 || sigaction(SIGTRAP, NULL, &seen) != 0 || seen.sa_handler != SIG_IGN)
		return 2;
	raise(SIGTRAP);
	return 0;
}
