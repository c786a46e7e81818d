/* A thread that exists before pm_install overflows its stack: the install
 * must have given it an alternate signal stack too. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "postmortem.h"

static atomic_int go;
volatile int zero;

__attribute__((noinline, noclone)) static int
recurse_early(volatile int depth)
{
	volatile char pad[512];
	pad[0] = (char)depth;
	int r = (zero == 0 ? recurse_early(depth + 1) : 0) + pad[0];
	__asm__ volatile("" ::: "memory");
	return r;
}

static void *
early(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		usleep(1000);
	recurse_early(0);
	return NULL;
}

int
main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, early, NULL);
	if (pm_install(NULL) != 0)
		return 2;
	atomic_store(&go, 1);
	pthread_join(t, NULL);
	return 0;
}
