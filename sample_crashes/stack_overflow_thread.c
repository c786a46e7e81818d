/* Unbounded recursion on a worker thread: only an alternate signal stack
 * lets the handler run. */
#include <pthread.h>

#include "sample.h"

SAMPLE_FRAME static int
crash_recurse_worker(volatile int depth)
{
	volatile char pad[512];
	pad[0] = (char)depth;
	/* sample_zero is always 0 (see stack_overflow.c). */
	int r = (sample_zero == 0 ? crash_recurse_worker(depth + 1) : 0) + pad[0];
	SAMPLE_KEEP_FRAME();
	return r;
}

static void *
worker(void *arg)
{
	(void)arg;
	crash_recurse_worker(0);
	return NULL;
}

int
main(void)
{
	sample_install();
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
