/*
 * The app sets its own SIGSEGV handler after pm_install and hands each
 * fault on to the handler it replaced (postmortem's), as a well-behaved
 * library does: the report is written and the process dies of SIGSEGV.
 */
#include <signal.h>
#include <string.h>

#include "postmortem.h"
#include "sample.h"

static struct sigaction replaced;
static void
app_handler(int sig, siginfo_t *info, void *uctx)
{
	replaced.sa_sigaction(sig, info, uctx);
}

SAMPLE_FRAME static int
crash_after_app_handler(void)
{
	return *sample_null;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	if (sigaction(SIGSEGV, &sa, &replaced) != 0 || !(replaced.sa_flags & SA_SIGINFO))
		return 3;
	return crash_after_app_handler();
}
