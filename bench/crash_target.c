/*
 * crash_target.c — the process of issue 3's timing benchmark: THREADS
 * threads, each PARK_DEPTH frames deep.  THREADS-1 of them block in libc;
 * the main thread then either faults (mode "crash") or blocks too (mode
 * "park", for gdb to attach to the same kind of process).
 *
 *   crash: prints what crash_clock.h measures
 *   park:  prints "ready", then waits to be killed
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash_clock.h"
#include "park.h"

enum { PARK_DEPTH = 30 };
/* pm_config.max_threads' default: more threads than this need room asked for. */
enum { DEFAULT_MAX_THREADS = 1024 };

static void
park_main(void *arg)
{
	(void)arg;
	printf("ready\n");
	fflush(stdout);
	park_forever(PARK_POLL);
}

int
main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[1]) < 1 || (strcmp(argv[2], "crash") != 0 && strcmp(argv[2], "park") != 0)) {
		fprintf(stderr, "usage: %s THREADS crash|park\n", argv[0]);
		return 2;
	}
	size_t others = (size_t)atoi(argv[1]) - 1;
	if (crash_clock_install(others + 1 > DEFAULT_MAX_THREADS ? (uint32_t)others + 1 : 0) != 0 || park_threads(others, PARK_DEPTH) != 0 || park_wait(others) != 0) {
		fprintf(stderr, "crash_target: %s\n", strerror(errno));
		return 2;
	}
	park_descend(PARK_DEPTH, strcmp(argv[2], "crash") == 0 ? crash_clock_fault : park_main, NULL);
	return 0;
}
