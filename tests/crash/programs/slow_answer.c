/* Threads that answer the freeze late: two keep every signal blocked until
 * HOLD_MS after the crash, running (not asleep, so the reporter waits for
 * them), then unblock and take the freeze request in unblock_all.  One sits
 * in the first batch of stacks the reporter reads together, one in the
 * second.  A third blocks every signal for good, asleep.  The report must
 * walk both slow threads from where they answered, and note the deaf one as
 * not stopped. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "postmortem.h"

enum { HOLD_MS = 100, IDLE_BEFORE = 14, IDLE_AFTER = 6, THREADS = 2 + 1 + IDLE_BEFORE + IDLE_AFTER };

int *volatile null_pointer;
static atomic_int ready, go, unblocked;

static uint64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The pending freeze request is taken on the way out of this call; the store
 * after it keeps the call from becoming a jump that would leave no frame. */
__attribute__((noinline)) void
unblock_all(const sigset_t *all)
{
	pthread_sigmask(SIG_UNBLOCK, all, NULL);
	atomic_fetch_add(&unblocked, 1);
}

/* A thread that blocks every signal: asleep for good, or running until
 * HOLD_MS after the crash and then taking the freeze request. */
typedef struct blocker {
	const char *name;
	bool for_good;
} blocker;

__attribute__((noinline)) void *
blocking_worker(void *arg)
{
	const blocker *b = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), b->name);
	atomic_fetch_add(&ready, 1);
	while (b->for_good)
		pause();
	while (!atomic_load(&go))
		sched_yield();
	uint64_t until = now_ms() + HOLD_MS;
	while (now_ms() < until)
		sched_yield();
	unblock_all(&all);
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) void *
idle_worker(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	atomic_fetch_add(&ready, 1);
	for (;;)
		pause();
	return NULL;
}

static void
start(void *(*fn)(void *), const void *arg)
{
	pthread_t t;
	pthread_create(&t, NULL, fn, (void *)arg);
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	static char names[IDLE_BEFORE + IDLE_AFTER][16];
	for (int i = 0; i < IDLE_BEFORE + IDLE_AFTER; i++)
		snprintf(names[i], sizeof names[i], "idle-%d", i);
	/* In tid order, which is the report's: main, slow-1, deaf, idle..., slow-2 (the 18th), idle... */
	static const blocker slow1 = { "slow-1", false }, deaf = { "deaf-worker", true }, slow2 = { "slow-2", false };
	start(blocking_worker, &slow1);
	start(blocking_worker, &deaf);
	for (int i = 0; i < IDLE_BEFORE; i++)
		start(idle_worker, names[i]);
	start(blocking_worker, &slow2);
	for (int i = IDLE_BEFORE; i < IDLE_BEFORE + IDLE_AFTER; i++)
		start(idle_worker, names[i]);
	while (atomic_load(&ready) < THREADS)
		usleep(200);
	atomic_store(&go, 1);
	return *null_pointer;
}
