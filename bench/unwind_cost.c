/*
 * unwind_cost.c — the crash unwinder alone, per frame.  A thread descends
 * DEPTH frames (park.c) and calls qsort; the comparator raises SIGUSR1, and
 * the handler walks the context it interrupted WALKS times with
 * pm_as_unwind, through the fault-free memory reader (with its page cache) and image table the
 * crash handler uses.  The stack crosses libc twice (raise, qsort), as a
 * crashed thread's often does.  Built in the sample programs' flavours.
 *
 * Prints "frames N walks K ns/walk X ns/frame Y".
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "park.h"
#include "reporter/as_unwind.h"
#include "sample_crashes/sample.h"

enum { DEPTH = 30, WALKS = 2000, MAX_FRAMES = 512, MAX_IMAGES = 512, MAX_MAPS = 8192 };

static char arena_mem[4 << 20];
static pm_as_image as_images[MAX_IMAGES];
static pm_as_map as_maps[MAX_MAPS];
static pm_frame frames[MAX_FRAMES];
static char exe[PATH_MAX], line[4096];
static volatile sig_atomic_t raised;

static struct result {
	uint32_t frames;
	double ns_per_walk;
	const char *stop;
} result;

static double
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* In the handler, as at crash time: the image table comes from the same scan. */
static void
on_usr1(int sig, siginfo_t *info, void *uctx)
{
	static pm_report rep;
	static pm_mem_cache cache;
	pm_as_images im = { .images = as_images, .cap = MAX_IMAGES, .maps = as_maps, .map_cap = MAX_MAPS };
	pm_unwind_env env = { .mem = pm_as_mem_cached(&cache), .images = &im };
	pm_cpu cpu;
	(void)sig;
	(void)info;
	pm_report_init_fixed(&rep, arena_mem, sizeof arena_mem);
	rep.images = pm_arena_alloc(&rep.arena, MAX_IMAGES * sizeof *rep.images, _Alignof(pm_image));
	pm_as_images_scan(&im, &rep, &env.mem, exe, line, sizeof line);
	pm_arch_cpu_from_mcontext(&((ucontext_t *)uctx)->uc_mcontext, &cpu);
	double t0 = now_ns();
	/* Each walk starts with an empty page cache, as a crash's does. */
	for (int i = 0; i < WALKS; i++) {
		pm_as_mem_cache_reset(&cache);
		result.frames = pm_as_unwind(&env, &cpu, frames, MAX_FRAMES, &result.stop);
	}
	result.ns_per_walk = (now_ns() - t0) / WALKS;
}

SAMPLE_FRAME static int
compare_and_raise(const void *a, const void *b)
{
	if (!raised) {
		raised = 1;
		raise(SIGUSR1);
	}
	return *(const int *)a - *(const int *)b;
}

SAMPLE_FRAME static void
sort_and_raise(void *arg)
{
	int v[16] = { 9, 4, 12, 1, 15, 7, 3, 11, 0, 14, 6, 10, 2, 13, 5, 8 };
	(void)arg;
	qsort(v, sizeof v / sizeof v[0], sizeof v[0], compare_and_raise);
	SAMPLE_KEEP_FRAME();
}

static void *
walker(void *arg)
{
	park_descend(DEPTH, sort_and_raise, arg);
	return NULL;
}

int
main(void)
{
	struct sigaction sa;
	pthread_t t;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || !pm_as_mem_setup())
		return 2;
	exe[n] = '\0';
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0 || pthread_create(&t, NULL, walker, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	if (result.stop)
		fprintf(stderr, "unwind_cost: the walk stopped early: %s\n", result.stop);
	printf("frames %u walks %d ns/walk %.0f ns/frame %.1f\n", result.frames, WALKS, result.ns_per_walk,
	       result.ns_per_walk / result.frames);
	return result.stop ? 1 : 0;
}
