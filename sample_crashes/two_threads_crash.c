/* Two threads fault at the same moment: one report, and the process dies of SIGSEGV. */
#include <pthread.h>

#include "sample.h"

static pthread_barrier_t go;

SAMPLE_FRAME static int
crash_in_thread(void)
{
	return *sample_null;
}

static void *
worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	crash_in_thread();
	SAMPLE_KEEP_FRAME();
	return NULL;
}

int
main(void)
{
	sample_install();
	pthread_barrier_init(&go, NULL, 2);
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, worker, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
