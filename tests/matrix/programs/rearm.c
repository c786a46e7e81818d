/*
 * Issue 12, item 2: the app's own SIGSEGV handler (set before pm_install)
 * recovers from two faults with siglongjmp; then the app aborts.  Each of
 * the three faults must get its own report, and the process dies of SIGABRT.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem.h"
#include "sample.h"

static sigjmp_buf recover;
static void
recovering_handler(int sig)
{
	siglongjmp(recover, sig);
}

SAMPLE_FRAME static int
fault_and_recover(void)
{
	if (sigsetjmp(recover, 1) != 0)
		return 1;
	return *sample_null;
}

int
main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = recovering_handler;
	sigaction(SIGSEGV, &sa, NULL);
	if (pm_install(NULL) != 0)
		return 2;
	if (fault_and_recover() != 1 || fault_and_recover() != 1)
		return 3;
	abort();
}
