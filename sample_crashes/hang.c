/*
 * A main loop that stops sending heartbeats: the watchdog's test program.
 *   crash_hang keep     blocks 2 s, recovers, exits 0 (report kept as a hang)
 *   crash_hang retract  the same, with the report retracted on recovery
 *   crash_hang kill     blocks for good; the watchdog kills it after 1 s
 *   crash_hang exit     the watched thread (a worker) exits: the watchdog must
 *                       stop by itself, without a hang report (exit 0 if it did)
 *   crash_hang notify   beats for 0.5 s with systemd_notify on: a systemd-style
 *                       NOTIFY_SOCKET receives WATCHDOG=1 while the loop is alive
 * The watchdog threshold is 250 ms.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "postmortem.h"
#include "sample.h"

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Busy in a way a signal cannot cut short: sleep in small steps until the time is up. */
SAMPLE_FRAME static void
block_main_loop(double seconds)
{
	double end = now_s() + seconds;
	while (now_s() < end) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static void
run_main_loop(double seconds)
{
	double end = now_s() + seconds;
	while (now_s() < end) {
		pm_watchdog_heartbeat();
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
}

/* Is a thread called pm-watchdog still running? */
static bool
watchdog_alive(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool alive = false;
	while (d && (e = readdir(d)) != NULL) {
		char path[300], name[32] = "";
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f) {
			alive |= fgets(name, sizeof name, f) && strncmp(name, "pm-watchdog", 11) == 0;
			fclose(f);
		}
	}
	if (d)
		closedir(d);
	return alive;
}

static void *
watched_worker(void *arg)
{
	pm_watchdog_config cfg = { .threshold_ms = 250 };
	(void)arg;
	if (pm_watchdog_start(&cfg) == 0)
		run_main_loop(0.3);
	return NULL;
}

/* The watched thread exits: the watchdog must notice and stop, reporting nothing. */
static int
watched_thread_exits(void)
{
	pthread_t t;
	pthread_create(&t, NULL, watched_worker, NULL);
	pthread_join(t, NULL);
	struct timespec ts = { 1, 0 };
	nanosleep(&ts, NULL);
	return watchdog_alive() ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "keep";
	sample_install();
	if (strcmp(mode, "exit") == 0)
		return watched_thread_exits();
	pm_watchdog_config cfg = { .threshold_ms = 250 };
	if (strcmp(mode, "retract") == 0)
		cfg.on_recovery = PM_WATCHDOG_RETRACT;
	if (strcmp(mode, "kill") == 0)
		cfg.kill_after_ms = 1000;
	if (strcmp(mode, "notify") == 0) {
		cfg.systemd_notify = true;
		if (pm_watchdog_start(&cfg) != 0)
			return 2;
		run_main_loop(0.5);
		pm_watchdog_stop();
		return 0;
	}
	if (pm_watchdog_start(&cfg) != 0) {
		perror("pm_watchdog_start");
		return 2;
	}
	run_main_loop(0.3);
	block_main_loop(strcmp(mode, "kill") == 0 ? 3600 : 2.0);
	run_main_loop(0.6);
	pm_watchdog_stop();
	return 0;
}
