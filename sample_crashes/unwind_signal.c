/* A crash inside the application's own SIGUSR1 handler: the walk must cross
 * the kernel's signal frame (__restore_rt) back to the code raise() was
 * called from. */
#include <signal.h>
#include <string.h>

#include "sample.h"

SAMPLE_FRAME static void
crash_in_handler(void)
{
	*sample_null = 1;
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static void
on_usr1(int sig)
{
	(void)sig;
	crash_in_handler();
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static int
raise_usr1(void)
{
	int r = raise(SIGUSR1);
	SAMPLE_KEEP_FRAME();
	return r;
}

int
main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sample_install();
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	int r = raise_usr1();
	SAMPLE_KEEP_FRAME();
	return r;
}
