/*
 * watchdog_cost.c — issue 7's numbers for the hang watchdog, in one run:
 *
 *   heartbeat   ns per pm_watchdog_heartbeat(), beside what a main loop
 *               would otherwise do to say "alive": read the monotonic clock
 *               into a shared variable, or take a mutex around it
 *   idle CPU    CPU the watchdog thread uses while the loop beats normally
 *   latency     from the moment the main loop stops to the hang report being
 *               on disk, against the threshold (250 ms)
 *
 * Usage: bench_watchdog_cost REPORTS_DIR
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "postmortem.h"
#include "timing.h"

enum { BEATS = 50 * 1000 * 1000, IDLE_SECONDS = 3, HANGS = 8, THRESHOLD_MS = 250 };

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static double
per_call(void (*beat)(void))
{
	uint64_t t0 = now_ns();
	for (int i = 0; i < BEATS; i++)
		beat();
	return (double)(now_ns() - t0) / BEATS;
}

static _Atomic uint64_t last_alive;
static pthread_mutex_t alive_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t alive_locked;

static void
beat_clock(void)
{
	atomic_store_explicit(&last_alive, now_ns(), memory_order_relaxed);
}

static void
beat_mutex(void)
{
	pthread_mutex_lock(&alive_lock);
	alive_locked = now_ns();
	pthread_mutex_unlock(&alive_lock);
}

/* CPU nanoseconds of the thread named pm-watchdog (schedstat's first field). */
static uint64_t
watchdog_cpu_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t ns = 0;
	while (d && (e = readdir(d)) != NULL) {
		char path[300], name[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof name, f))
			name[0] = '\0';
		fclose(f);
		if (strncmp(name, "pm-watchdog", 11) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (f) {
			unsigned long long v = 0;
			if (fscanf(f, "%llu", &v) == 1)
				ns = v;
			fclose(f);
		}
	}
	if (d)
		closedir(d);
	return ns;
}

static int
count_reports(const char *pending)
{
	DIR *d = opendir(pending);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) != NULL) {
		size_t k = strlen(e->d_name);
		n += e->d_name[0] != '.' && k > 5 && strcmp(e->d_name + k - 5, ".json") == 0;
	}
	if (d)
		closedir(d);
	return n;
}

/* Stop beating; spin-check for the new report; return ms from stop to the file. */
static double
one_hang(const char *pending)
{
	int before = count_reports(pending);
	uint64_t t0 = now_ns();
	while (count_reports(pending) == before) {
		if (now_ns() - t0 > 5000000000u)
			return -1;
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	double ms = (double)(now_ns() - t0) / 1e6;
	for (int i = 0; i < 100; i++) { /* recover */
		pm_watchdog_heartbeat();
		sleep_ms(2);
	}
	return ms;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s REPORTS_DIR\n", argv[0]);
		return 2;
	}
	pm_config cfg = { .reports_dir = argv[1] };
	pm_watchdog_config wcfg = { .threshold_ms = THRESHOLD_MS };
	if (pm_install(&cfg) != 0 || pm_watchdog_start(&wcfg) != 0) {
		perror("postmortem");
		return 2;
	}
	printf("heartbeat, ns per call (%d calls each)\n", BEATS);
	printf("  pm_watchdog_heartbeat            %6.2f\n", per_call(pm_watchdog_heartbeat));
	printf("  clock_gettime + atomic store     %6.2f\n", per_call(beat_clock));
	printf("  mutex + clock_gettime + unlock   %6.2f\n", per_call(beat_mutex));

	uint64_t cpu0 = watchdog_cpu_ns(), t0 = now_ns();
	while (now_ns() - t0 < (uint64_t)IDLE_SECONDS * 1000000000u) {
		pm_watchdog_heartbeat();
		sleep_ms(1);
	}
	double wall = (double)(now_ns() - t0), cpu = (double)(watchdog_cpu_ns() - cpu0);
	printf("\nwatchdog thread CPU at idle (threshold %d ms, loop beating every 1 ms for %d s)\n",
	       THRESHOLD_MS, IDLE_SECONDS);
	printf("  %.1f us of CPU per second = %.4f %% of one core\n", cpu / wall * 1e6, 100.0 * cpu / wall);

	char pending[4096];
	snprintf(pending, sizeof pending, "%s/pending", argv[1]);
	double ms[HANGS];
	int n = 0;
	for (int i = 0; i < HANGS; i++) {
		double v = one_hang(pending);
		if (v >= 0)
			ms[n++] = v;
	}
	timing_sort(ms, (size_t)n);
	printf("\ndetection latency: main loop stops -> hang report on disk (%d hangs)\n", n);
	if (n > 0)
		printf("  min %.1f ms, median %.1f ms, max %.1f ms; threshold %d ms (+%.1f ms median over it)\n",
		       ms[0], ms[n / 2], ms[n - 1], THRESHOLD_MS, ms[n / 2] - THRESHOLD_MS);
	pm_watchdog_stop();
	pm_uninstall();
	return n == HANGS ? 0 : 1;
}
