/* A thread that exists before pm_install overflows its stack: the install
 * must have given it an alternate signal stack too.
 *
 * With the argument "reinstall", pm_install runs twice (pm_uninstall in
 * between) before the overflow, and the annotation "interrupted" tells how
 * often the thread's poll() returned EINTR after each install: the first
 * install signals it, the second knows it holds a stack already. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "postmortem.h"

static atomic_int go, interrupted, probe, probed;
volatile int zero;

__attribute__((noinline, noclone)) static int
recurse_early(volatile int depth)
{
	volatile char pad[512];
	pad[0] = (char)depth;
	int r = (zero == 0 ? recurse_early(depth + 1) : 0) + pad[0];
	__asm__ volatile("" ::: "memory");
	return r;
}

static void *
early(void *arg)
{
	(void)arg;
	while (!atomic_load(&go)) {
		if (poll(NULL, 0, 1) < 0 && errno == EINTR)
			atomic_fetch_add(&interrupted, 1);
		atomic_store(&probed, atomic_load(&probe));
	}
	recurse_early(0);
	return NULL;
}

/* EINTRs the thread saw up to a full loop after now. */
static int
interruptions(int round)
{
	atomic_store(&probe, round);
	while (atomic_load(&probed) != round)
		usleep(1000);
	return atomic_load(&interrupted);
}

int
main(int argc, char **argv)
{
	pthread_t t;
	pthread_create(&t, NULL, early, NULL);
	if (pm_install(NULL) != 0)
		return 2;
	if (argc > 1 && strcmp(argv[1], "reinstall") == 0) {
		int first = interruptions(1);
		pm_uninstall();
		if (pm_install(NULL) != 0)
			return 2;
		int second = interruptions(2);
		char text[32];
		snprintf(text, sizeof text, "%d %d", first, second);
		pm_annotate("interrupted", text);
	}
	atomic_store(&go, 1);
	pthread_join(t, NULL);
	return 0;
}
