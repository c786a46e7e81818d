/*
 * Many threads, the crashers created last (their tids sort last in
 * /proc/self/task).  Arguments: THREADS (besides main), MAX_THREADS for
 * pm_install (0: the default), and optionally CRASHERS (1 or 2) and SHIM.
 *
 * With two crashers, whichever reports first must keep the other in the
 * report too, noted as having crashed while the report was written (issue
 * 12, item 1).  The second crash must happen before the reporter lists the
 * threads: SHIM (hold_listing.c), which this program preloads into itself,
 * holds the listing until the other crasher waits in postmortem's handler.
 * Each crasher publishes its tid (crasher_tids) for it.
 *
 * The freeze timeout is long so that a slow machine cannot turn "did not
 * stop in time" into a result.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "postmortem.h"
#include "sample.h"

volatile int crasher_tids[2];
static int crashers = 1;

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
	int me = (int)(long)arg;
	crasher_tids[me] = (int)syscall(SYS_gettid);
	while (crashers == 2 && !crasher_tids[1 - me])
		sched_yield();
	return (void *)(long)*sample_null;
}

/* Run again with SHIM preloaded, unless it already is. */
static void
preload_into_self(const char *shim, char **argv)
{
	const char *preload = getenv("LD_PRELOAD");
	if (preload && strstr(preload, shim))
		return;
	if (setenv("LD_PRELOAD", shim, 1) == 0)
		execv("/proc/self/exe", argv);
	exit(3);
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		return 3;
	long threads = atol(argv[1]);
	crashers = argc > 3 && atoi(argv[3]) == 2 ? 2 : 1;
	if (argc > 4)
		preload_into_self(argv[4], argv);
	pm_config cfg = { .max_threads = (uint32_t)atol(argv[2]), .freeze_timeout_ms = 20000 };
	if (pm_install(&cfg) != 0)
		return 2;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_t t;
	for (long i = 0; i < threads - crashers; i++)
		if (pthread_create(&t, &attr, sleeper, NULL) != 0)
			return 3;
	for (long i = 0; i < crashers; i++)
		if (pthread_create(&t, &attr, crash_in_last_thread, (void *)i) != 0)
			return 3;
	for (;;)
		pause();
}
