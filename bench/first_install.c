/*
 * first_install.c — issue 14: what the first pm_install of a fresh process
 * costs the thread that calls it, beside what a bare first pthread_create
 * costs in the same kind of process (the anchor: the least a start of
 * anything on another thread would pay).  One measurement per process:
 * first_install.py spawns it once per row and run.
 *
 * usage: bench_first_install REPORTS_DIR THREADS install|thread
 * THREADS in all (THREADS - 1 parked in libc calls first); prints the
 * call's wall time and the calling thread's CPU time in microseconds, and
 * the page faults it took (RUSAGE_THREAD), on one line.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "park.h"
#include "postmortem.h"
#include "timing.h"

static double
cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long
faults(void)
{
	struct rusage r;
	getrusage(RUSAGE_THREAD, &r);
	return r.ru_minflt + r.ru_majflt;
}

static void *
nothing(void *arg)
{
	return arg;
}

int
main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[3], "install") != 0 && strcmp(argv[3], "thread") != 0)) {
		fprintf(stderr, "usage: %s REPORTS_DIR THREADS install|thread\n", argv[0]);
		return 2;
	}
	size_t threads = strtoul(argv[2], NULL, 10);
	bool install = strcmp(argv[3], "install") == 0;
	if (threads > 1 && (park_threads(threads - 1, 1) != 0 || park_wait(threads - 1) != 0))
		return 1;
	pm_config cfg = { .reports_dir = argv[1] };
	pthread_t t;
	long f0 = faults();
	double c0 = cpu_us(), t0 = timing_now_us();
	int r = install ? pm_install(&cfg) : pthread_create(&t, NULL, nothing, NULL);
	double t1 = timing_now_us(), c1 = cpu_us();
	long f1 = faults();
	if (r != 0)
		return 1;
	if (!install)
		pthread_join(t, NULL);
	printf("%.1f %.1f %ld\n", t1 - t0, c1 - c0, f1 - f0);
	return 0;
}
