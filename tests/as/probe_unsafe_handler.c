/*
 * probe_unsafe_handler.c — a control for the interposer: a signal handler
 * on an alternate stack that does call malloc.  The interposer must notice,
 * or the "zero calls during a crash" test would prove nothing.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void
bad_handler(int sig)
{
	(void)sig;
	void *volatile p = malloc(32);
	free(p);
}

int
main(void)
{
	static char stack[64 * 1024];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof stack };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = bad_handler;
	sa.sa_flags = SA_ONSTACK;
	if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	raise(SIGUSR1);
	return 0;
}
