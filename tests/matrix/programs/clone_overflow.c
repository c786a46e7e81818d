/*
 * A thread made with raw clone() (not pthread_create) overflows its stack.
 * postmortem cannot give it an alternate signal stack, so the kernel ends
 * the process with SIGSEGV and no report is written: the documented limit
 * (README), checked so it stays what the README says.
 */
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "postmortem.h"

volatile int always_zero;

__attribute__((noinline)) static int
recurse_raw(int depth)
{
	volatile char pad[256];
	pad[0] = (char)depth;
	/* The test keeps -Winfinite-recursion quiet without changing what runs. */
	int r = (always_zero == 0 ? recurse_raw(depth + 1) : 0) + pad[0];
	__asm__ volatile("" ::: "memory");
	return r;
}

static int
raw_thread(void *arg)
{
	(void)arg;
	return recurse_raw(0);
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	size_t size = 256 * 1024, guard = 4096;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* A guard page: the overflow faults there, not in a neighbouring mapping. */
	if (stack == MAP_FAILED || mprotect(stack, guard, PROT_NONE) != 0)
		return 3;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	if (clone(raw_thread, stack + size, flags, NULL) < 0)
		return 3;
	for (;;)
		pause();
}
