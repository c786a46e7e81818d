/*
 * clone_overflow.c — a thread made with raw clone() (no pthread, no
 * alternate signal stack) overflows its 64 KiB stack: an in-process
 * handler has no stack to run on; the kernel still dumps every thread.
 */
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

enum { STACK = 64 << 10 };
static volatile int zero;

static __attribute__((noinline)) int
recurse(int n)
{
	volatile char pad[256];
	pad[0] = (char)n;
	/* A volatile test the compiler cannot see through: the recursion is meant. */
	return (zero == 0 ? recurse(n + 1) : 0) + pad[0];
}

static int
child(void *arg)
{
	(void)arg;
	return recurse(0);
}

int
main(void)
{
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return 1;
	if (clone(child, stack + STACK, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD, NULL) < 0)
		return 1;
	for (;;)
		pause();
}
