/* An app that links libpostmortem and installs a handler after pm_install,
 * as Python's faulthandler does: it writes a line, puts the handler it found
 * back and raises the signal again.  No preload library, so no interposition:
 * the kernel runs this handler, not postmortem's, for the fault itself.
 * No argument: a SIGSEGV at 0x10 and a plain handler (faulthandler's kind,
 * without SA_SIGINFO).  "fpe": a division by zero and an SA_SIGINFO handler. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "postmortem.h"

static struct sigaction found;

static void
late_handler(int sig)
{
	static const char line[] = "late handler: fatal signal\n";
	(void)!write(2, line, sizeof line - 1);
	sigaction(sig, &found, NULL);
	raise(sig);
}

static void
late_siginfo_handler(int sig, siginfo_t *info, void *uctx)
{
	(void)info;
	(void)uctx;
	late_handler(sig);
}

int *volatile bad_pointer = (int *)16;
volatile int seven = 7, zero;

int
main(int argc, char **argv)
{
	bool fpe = argc > 1 && strcmp(argv[1], "fpe") == 0;
	if (pm_install(NULL) != 0)
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_NODEFER | SA_ONSTACK;
	if (fpe) {
		sa.sa_sigaction = late_siginfo_handler;
		sa.sa_flags |= SA_SIGINFO;
	} else {
		sa.sa_handler = late_handler;
	}
	sigaction(fpe ? SIGFPE : SIGSEGV, &sa, &found);
	return fpe ? seven / zero : *bad_pointer;
}
