/* A crash a few calls deep on a worker thread: the walk ends at the
 * thread's outermost frame (clone3), below libc's start_thread. */
#include <pthread.h>

#include "sample.h"

SAMPLE_FRAME static void
crash_in_worker(void)
{
	*sample_null = 1;
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static void
worker_descend(void)
{
	crash_in_worker();
	SAMPLE_KEEP_FRAME();
}

static void *
worker_main(void *arg)
{
	worker_descend();
	SAMPLE_KEEP_FRAME();
	return arg;
}

int
main(void)
{
	pthread_t t;
	sample_install();
	if (pthread_create(&t, NULL, worker_main, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	return 0;
}
