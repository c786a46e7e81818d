/*
 * A main loop that stops sending heartbeats: the watchdog's test program.
 *   crash_hang keep     blocks 2 s, recovers, exits 0 (report kept as a hang)
 *   crash_hang retract  the same, with the report retracted on recovery
 *   crash_hang kill     blocks for good; the watchdog kills it after 1 s
 * The watchdog threshold is 250 ms.
 */
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

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "keep";
	sample_install();
	pm_watchdog_config cfg = { .threshold_ms = 250 };
	if (strcmp(mode, "retract") == 0)
		cfg.on_recovery = PM_WATCHDOG_RETRACT;
	if (strcmp(mode, "kill") == 0)
		cfg.kill_after_ms = 1000;
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
