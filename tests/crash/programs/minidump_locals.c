/* Crashes with known locals and arguments on its stack, and a register
 * pointing at a heap string, beside two parked named threads: a debugger
 * opening the minidump must read them back. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;
static atomic_int parked;

static void *
park(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "md-parked");
	atomic_fetch_add(&parked, 1);
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) static int
crash_with_locals(int depth)
{
	volatile int answer = 4242;
	volatile long product = (long)depth * 1000003;
	char *marker = strdup("minidump-heap-marker");
	/* Only the memory around the crashed thread's pointers keeps the heap. */
#if defined(__x86_64__)
	__asm__ volatile("mov %0, %%r12" : : "r"(marker) : "r12");
#elif defined(__aarch64__)
	__asm__ volatile("mov x19, %0" : : "r"(marker) : "x19");
#endif
	*null_pointer = answer + (int)product;
	return answer;
}

__attribute__((noinline)) static int
descend(int depth)
{
	if (depth > 0)
		return descend(depth - 1) + 1;
	return crash_with_locals(7);
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, park, NULL);
	while (atomic_load(&parked) < 2)
		usleep(1000);
	return descend(3);
}
