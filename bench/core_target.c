/*
 * core_target.c — the process of the system reporter's benchmark
 * (core_handler.py): no postmortem in it.  It makes MIB MiB resident (not
 * zero: the kernel skips zero pages of a core), parks THREADS-1 threads
 * PARK_DEPTH frames deep in libc, prints CLOCK_MONOTONIC in ns and
 * dereferences NULL as deep: the kernel then dumps it to whatever
 * kernel.core_pattern names.
 *
 *   core_target THREADS MIB
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "park.h"

enum { PARK_DEPTH = 30 };

static void
fault(void *unused)
{
	(void)unused;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000 + now.tv_nsec);
	fflush(stdout);
	*(volatile int *)0 = 1;
}

int
main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[2]) < 0) {
		fprintf(stderr, "usage: %s THREADS MIB\n", argv[0]);
		return 2;
	}
	size_t others = (size_t)atoi(argv[1]) - 1, bytes = (size_t)atoi(argv[2]) << 20;
	char *resident = malloc(bytes ? bytes : 1);
	if (!resident)
		return 2;
	memset(resident, 0x5a, bytes);
	if (park_threads(others, PARK_DEPTH) != 0 || park_wait(others) != 0) {
		fprintf(stderr, "core_target: %s\n", strerror(errno));
		return 2;
	}
	park_descend(PARK_DEPTH, fault, NULL);
	return 0;
}
