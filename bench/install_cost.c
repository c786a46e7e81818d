/*
 * install_cost.c — issue 3 (b): what pm_install and pm_uninstall cost, in
 * a fresh process, with 1, 17 and 257 threads alive (pm_install gives every
 * existing thread an alternate signal stack).  The first install of each
 * row is shown apart: in the first row it pays for first-touch page faults
 * and the loader's first calls, in the others for the threads just started.
 * A last row adds BLOCKING threads that block every signal (as threads
 * that leave signals to one sigwait thread do): they never take the setup
 * request while installed, so every install asks them again.
 *
 * usage: bench_install_cost REPORTS_DIR [ITERATIONS [THREADS...]]
 * (THREADS ascending; default 1 17 257)
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "park.h"
#include "postmortem.h"
#include "timing.h"

static const char *const default_threads[] = { "1", "17", "257" };

enum { BLOCKING = 16 };

static void *
block_all(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	park_forever(PARK_POLL);
	return NULL;
}

/* Lines of /proc/self/maps: a growing count means each install leaves mappings behind. */
static long
mapping_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;
	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s REPORTS_DIR [ITERATIONS [THREADS...]]\n", argv[0]);
		return 2;
	}
	size_t iters = argc > 2 ? strtoul(argv[2], NULL, 10) : 500;
	pm_config cfg = { .reports_dir = argv[1] };
	double *ins = calloc(iters, sizeof *ins), *unins = calloc(iters, sizeof *unins);
	if (!ins || !unins || iters == 0)
		return 2;
	printf("pm_install / pm_uninstall in one process, %zu iterations per row; times in microseconds\n"
	       "(goal: pm_install under 200 us)\n\n", iters);
	printf("%7s  %10s  %11s  %14s  %11s  %16s  %12s  %6s\n", "threads", "first", "install min",
	       "install median", "install p90", "uninstall median", "mappings +/-", "<200us");
	printf("%7s  %10s  %11s  %14s  %11s  %16s  %12s  %6s\n", "-------", "----------", "-----------",
	       "--------------", "-----------", "----------------", "------------", "------");
	const char *const *rows = argc > 3 ? (const char *const *)argv + 3 : default_threads;
	size_t row_count = argc > 3 ? (size_t)argc - 3 : sizeof default_threads / sizeof default_threads[0];
	size_t alive = 1, blocking = 0;
	for (size_t row = 0; row <= row_count; row++) {
		size_t want = row < row_count ? strtoul(rows[row], NULL, 10) : alive;
		if (want < alive || park_threads(want - alive, 1) != 0) {
			fprintf(stderr, "cannot go from %zu to %zu threads: %s\n", alive, want, strerror(errno));
			return 1;
		}
		for (; row == row_count && blocking < BLOCKING; blocking++)
			if (park_thread(block_all, NULL) != 0) {
				fprintf(stderr, "cannot start a thread: %s\n", strerror(errno));
				return 1;
			}
		alive = want;
		if (park_wait(alive + blocking - 1) != 0) {
			fprintf(stderr, "threads did not park: %s\n", strerror(errno));
			return 1;
		}
		double first = 0;
		long maps_before = mapping_count();
		for (size_t i = 0; i <= iters; i++) {
			double t0 = timing_now_us();
			int r = pm_install(&cfg);
			double t1 = timing_now_us();
			pm_uninstall();
			double t2 = timing_now_us();
			if (r != 0) {
				fprintf(stderr, "pm_install: %s\n", strerror(errno));
				return 1;
			}
			if (i == 0) {
				first = t1 - t0;
				continue;
			}
			ins[i - 1] = t1 - t0;
			unins[i - 1] = t2 - t1;
		}
		char label[32];
		snprintf(label, sizeof label, blocking ? "%zu+%zub" : "%zu", alive, blocking);
		double med = timing_quantile(ins, iters, 0.5), p90 = timing_quantile(ins, iters, 0.9);
		printf("%7s  %10.1f  %11.1f  %14.1f  %11.1f  %16.1f  %+12ld  %6s\n", label, first, ins[0], med, p90,
		       timing_quantile(unins, iters, 0.5), mapping_count() - maps_before, med < 200 ? "yes" : "NO");
	}
	return 0;
}
