/*
 * Many threads, the one that crashes created last (its tid sorts last in
 * /proc/self/task).  Arguments: the number of threads besides main, and
 * max_threads for pm_install (0: the default).  The freeze timeout is long
 * so that a slow machine cannot turn "did not stop in time" into a result.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "postmortem.h"
#include "sample.h"

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

SAMPLE_FRAME static void *
crash_in_last_thread(void *arg)
{
	(void)arg;
	return (void *)(long)*sample_null;
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		return 3;
	long threads = atol(argv[1]);
	pm_config cfg = { .max_threads = (uint32_t)atol(argv[2]), .freeze_timeout_ms = 20000 };
	if (pm_install(&cfg) != 0)
		return 2;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_t t;
	for (long i = 0; i < threads - 1; i++)
		if (pthread_create(&t, &attr, sleeper, NULL) != 0)
			return 3;
	if (pthread_create(&t, &attr, crash_in_last_thread, NULL) != 0)
		return 3;
	for (;;)
		pause();
}
