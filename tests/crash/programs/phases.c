/* The crash callback is told where the handler's time went: it writes the
 * nanoseconds from just before the fault to the callback, then each phase's,
 * as eight uint64_t in this machine's byte order to $MARKER (open and write
 * only: it runs in the handler); then, with CALLBACK_SLEEP_MS, it sleeps that
 * long (a callback that takes its time: the process lives on meanwhile). */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;
static long sleep_ms;
static atomic_int named;
static struct timespec fault_time;

static void
on_crash(const pm_crash_info *info, void *ctx)
{
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	const pm_crash_phases *p = &info->phases;
	const uint64_t values[] = {
		(uint64_t)((end.tv_sec - fault_time.tv_sec) * 1000000000 + (end.tv_nsec - fault_time.tv_nsec)),
		p->freeze, p->images, p->threads, p->symbols, p->write, p->fsync, p->minidump,
	};
	int fd = open(ctx, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		(void)!write(fd, values, sizeof values);
		close(fd);
	}
	struct timespec t = { 0, sleep_ms % 1000 * 1000000L };
	t.tv_sec = sleep_ms / 1000;
	nanosleep(&t, NULL);
}

static void *
idle(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "idle-worker");
	atomic_store(&named, 1);
	pause();
	return NULL;
}

int
main(void)
{
	pm_config cfg = { .on_crash = on_crash, .on_crash_ctx = getenv("MARKER") };
	const char *sleep_text = getenv("CALLBACK_SLEEP_MS");
	sleep_ms = sleep_text ? atol(sleep_text) : 0;
	pthread_t t;
	if (!cfg.on_crash_ctx || pm_install(&cfg) != 0 || pthread_create(&t, NULL, idle, NULL) != 0)
		return 2;
	while (!atomic_load(&named))
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &fault_time);
	return *null_pointer;
}
