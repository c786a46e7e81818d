/*
 * context_cost.c — issue 16 (3): what pm_breadcrumb, pm_annotate and
 * pm_set_crash_message cost per call, beside a plain store of the same bytes
 * (the least an app keeping its own ring or table would pay), on one thread
 * and on four threads calling at once.
 *
 * usage: bench_context_cost [ITERATIONS]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "postmortem.h"
#include "timing.h"

enum { ROUNDS = 7, THREADS = 4, RING = 64, TEXT = 256 };

static const char message[] = "opened settings window from the toolbar"; /* 39 bytes */
static long iterations = 200000;

/* The baseline: a ring of fixed slots, one copy per call, no timestamp, no atomics. */
static char plain_ring[RING][TEXT];
static volatile unsigned plain_next;

static void
plain_store(const char *s)
{
	unsigned i = plain_next++ % RING;
	strncpy(plain_ring[i], s, TEXT - 1);
}

static void
call_breadcrumb(long i)
{
	(void)i;
	pm_breadcrumb(message);
}

static void
call_plain(long i)
{
	(void)i;
	plain_store(message);
}

static void
call_annotate(long i)
{
	pm_annotate("screen", (i & 1) ? message : "main window");
}

static void
call_plain_annotate(long i)
{
	strncpy(plain_ring[0], (i & 1) ? message : "main window", TEXT - 1);
}

static void
call_crash_message(long i)
{
	pm_set_crash_message((i & 1) ? message : "main window");
}

typedef void call_fn(long i);

static double
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct job {
	call_fn *fn;
} job;

static void *
loop(void *arg)
{
	call_fn *fn = ((job *)arg)->fn;
	for (long i = 0; i < iterations; i++)
		fn(i);
	return NULL;
}

/* Nanoseconds per call, each of `threads` threads making `iterations` calls at once. */
static double
per_call(call_fn *fn, int threads)
{
	pthread_t t[THREADS];
	job j = { fn };
	double start = now_ns();
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, loop, &j);
	loop(&j);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	return (now_ns() - start) / (double)iterations;
}

static double
median(call_fn *fn, int threads)
{
	double v[ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		v[r] = per_call(fn, threads);
	return timing_quantile(v, ROUNDS, 0.5);
}

static void
row(const char *name, call_fn *fn, call_fn *baseline, int threads)
{
	double ours = median(fn, threads), plain = median(baseline, threads);
	printf("| %s | %d | %.1f | %.1f | %.1f× |\n", name, threads, ours, plain, ours / plain);
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		iterations = atol(argv[1]);
	if (iterations <= 0) {
		fprintf(stderr, "usage: %s [ITERATIONS]\n", argv[0]);
		return 2;
	}
	printf("median of %d rounds of %ld calls per thread; ns per call (wall time / calls of one thread)\n\n",
	       ROUNDS, iterations);
	printf("| call | threads | postmortem ns | plain store ns | ratio |\n|---|---:|---:|---:|---:|\n");
	for (int threads = 1; threads <= THREADS; threads += THREADS - 1) {
		row("pm_breadcrumb (39 bytes)", call_breadcrumb, call_plain, threads);
		row("pm_annotate (replace a value)", call_annotate, call_plain_annotate, threads);
		row("pm_set_crash_message", call_crash_message, call_plain_annotate, threads);
	}
	return 0;
}
