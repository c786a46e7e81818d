/*
 * probe_unsafe_handler.c — a control for the interposer: a signal handler
 * on an alternate stack that does call malloc, and (with the argument "rt")
 * a real-time signal's handler on the ordinary stack that sets thread-specific
 * data, as postmortem's alternate-stack setup once did.  The interposer must
 * notice both, or the "zero calls during a crash" tests would prove nothing.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static pthread_key_t key;

static void
bad_handler(int sig)
{
	(void)sig;
	void *volatile p = malloc(32);
	free(p);
}

static void
bad_rt_handler(int sig, siginfo_t *info, void *uctx)
{
	(void)info;
	(void)uctx;
	pthread_setspecific(key, &key + sig);
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	if (argc > 1 && strcmp(argv[1], "rt") == 0) {
		sa.sa_sigaction = bad_rt_handler;
		sa.sa_flags = SA_SIGINFO;
		if (pthread_key_create(&key, NULL) != 0 || sigaction(SIGRTMIN + 3, &sa, NULL) != 0)
			return 2;
		raise(SIGRTMIN + 3);
		return 0;
	}
	static char stack[64 * 1024];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof stack };
	sa.sa_handler = bad_handler;
	sa.sa_flags = SA_ONSTACK;
	if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0)
		return 2;
	raise(SIGUSR1);
	return 0;
}
