/* THREADS threads (150 by default), thread k named "w<k>" and parked DEPTH(k) calls deep in
 * descend(), the main thread then crashing: enough threads that a frozen
 * one is lent to the walks (reporter/as_walker.c), each with a stack the
 * test knows. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;
static atomic_int ready;
static volatile int sink, stop;

static int
depth_of(int k)
{
	return 1 + k % 5;
}

__attribute__((noinline)) void
descend(int depth)
{
	if (depth > 1)
		descend(depth - 1);
	else {
		atomic_fetch_add(&ready, 1);
		while (!stop)
			pause();
	}
	sink++; /* no tail call: each level keeps its frame */
}

__attribute__((noinline)) void *
thread_main(void *arg)
{
	int k = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof name, "w%d", k);
	pthread_setname_np(pthread_self(), name);
	descend(depth_of(k));
	return NULL;
}

int
main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 150;
	if (threads < 1 || pm_install(NULL) != 0)
		return 2;
	for (int k = 0; k < threads; k++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_main, (void *)(long)k) != 0)
			return 2;
	}
	while (atomic_load(&ready) < threads)
		usleep(1000);
	*null_pointer = 1;
	return 0;
}
