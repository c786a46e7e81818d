/*
 * agree_target.c — issue 4's agreement benchmark: one process state that
 * postmortem and gdb both walk.  Built -O0, -O2 with frame pointers and -O2
 * without (with park.c, whose frames make up most of every stack).
 *
 * Threads: each park kind (futex wait, read, nanosleep, poll) at two
 * depths; one blocked inside a qsort comparator, so libc's sort lies between
 * it and its caller; one blocked inside its own SIGUSR2 handler, so a kernel
 * signal frame lies on its stack; and the main thread, which faults a few
 * frames deep.  Prints what crash_clock.h measures.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash_clock.h"
#include "park.h"
#include "sample_crashes/sample.h"

SAMPLE_FRAME static int
compare_and_park(const void *a, const void *b)
{
	park_forever(PARK_POLL);
	return *(const int *)a - *(const int *)b;
}

SAMPLE_FRAME static void
sort_and_park(void *arg)
{
	int v[16] = { 9, 4, 12, 1, 15, 7, 3, 11, 0, 14, 6, 10, 2, 13, 5, 8 };
	(void)arg;
	qsort(v, sizeof v / sizeof v[0], sizeof v[0], compare_and_park);
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static void
on_usr2(int sig)
{
	(void)sig;
	park_forever(PARK_NANOSLEEP);
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static void
raise_usr2(void *arg)
{
	(void)arg;
	raise(SIGUSR2);
	SAMPLE_KEEP_FRAME();
}

static void *
sorting_thread(void *arg)
{
	park_descend(2, sort_and_park, arg);
	return NULL;
}

static void *
signalled_thread(void *arg)
{
	park_descend(3, raise_usr2, arg);
	return NULL;
}

int
main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr2;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL) != 0 || crash_clock_install(0) != 0 ||
	    park_threads(PARK_KINDS, 2) != 0 || park_threads(PARK_KINDS, 9) != 0 ||
	    park_thread(sorting_thread, NULL) != 0 || park_thread(signalled_thread, NULL) != 0 ||
	    park_wait(2 * PARK_KINDS + 2) != 0) {
		fprintf(stderr, "agree_target: %s\n", strerror(errno));
		return 2;
	}
	park_descend(4, crash_clock_fault, NULL);
	return 0;
}
