/* An app that links libpostmortem and installs a handler after pm_install,
 * as Python's faulthandler does: it writes a line, puts the handler it found
 * back and raises the signal again.  No preload library, so no interposition:
 * the kernel runs this handler, not postmortem's, for the fault itself. */
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

int *volatile bad_pointer = (int *)16;

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = late_handler;
	sa.sa_flags = SA_NODEFER | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, &found);
	return *bad_pointer;
}
