/*
 * fault_loop [context|longjmp] N — a runtime's handled faults, timed: N loads
 * from a page nothing may touch, each resolved by the program's own SIGSEGV
 * handler (a context edit that makes the load return -1, or siglongjmp).
 * Prints the loop's nanoseconds and N.  Built plain (run bare or under the
 * preload library) and -DLINKED (pm_install after the handler).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "tests/crash/programs/trap_load.h"

#ifdef LINKED
#include "postmortem.h"
#endif

static sigjmp_buf back;
static int use_longjmp;

static void
handler(int sig, siginfo_t *info, void *uctx)
{
	(void)sig;
	(void)info;
	if (use_longjmp)
		siglongjmp(back, 1);
	trap_load_return(uctx);
}

int
main(int argc, char **argv)
{
	use_longjmp = argc > 1 && strcmp(argv[1], "longjmp") == 0;
	long n = argc > 2 ? atol(argv[2]) : 100000;
	int *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	if (page == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL) != 0)
		return 2;
#ifdef LINKED
	if (pm_install(NULL) != 0)
		return 2;
#endif
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (volatile long i = 0; i < n; i++) {
		if (use_longjmp && sigsetjmp(back, 1))
			continue;
		if (trap_load(page) != -1)
			return 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld %ld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec), n);
	return 0;
}
