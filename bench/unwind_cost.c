/*
 * unwind_cost.c — the crash unwinder alone, per frame.  A thread stopped
 * DEPTH frames down in a qsort comparator (stop_in_qsort.h) has the context
 * it was interrupted in walked WALKS times with as_unwind, in its signal
 * handler, through the fault-free memory reader (with its page cache) and
 * image table the crash handler uses.  The stack crosses libc twice (raise,
 * qsort), as a crashed thread's often does.  Built in the sample programs'
 * flavours.
 *
 * Prints "frames N walks K ns/walk X ns/frame Y".
 */
#include <stdio.h>
#include <time.h>

#include "stop_in_qsort.h"

enum { DEPTH = 30, WALKS = 2000, MAX_FRAMES = 512 };

static pm_frame frames[MAX_FRAMES];

struct result {
	uint32_t frames;
	double ns_per_walk;
	const char *stop;
};

static double
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void
walk_repeatedly(const stop_site *site, void *arg)
{
	struct result *r = arg;
	double t0 = now_ns();
	/* Each walk starts with an empty page cache, as a crash's does. */
	for (int i = 0; i < WALKS; i++) {
		pm_mem self = as_mem_self();
		as_mem_self_begin();
		as_mem_cache_reset(site->cache, &self);
		r->frames = as_unwind(&site->env, &site->cpu, frames, MAX_FRAMES, &r->stop);
	}
	r->ns_per_walk = (now_ns() - t0) / WALKS;
}

int
main(void)
{
	struct result r = { 0 };
	if (stop_in_qsort(DEPTH, walk_repeatedly, &r) != 0 || r.frames == 0)
		return 2;
	if (r.stop)
		fprintf(stderr, "unwind_cost: the walk stopped early: %s\n", r.stop);
	printf("frames %u walks %d ns/walk %.0f ns/frame %.1f\n", r.frames, WALKS, r.ns_per_walk,
	       r.ns_per_walk / r.frames);
	return r.stop ? 1 : 0;
}
