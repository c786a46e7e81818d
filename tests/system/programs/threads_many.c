/*
 * threads_many.c — N threads (argv[1]), each on a 16 KiB stack waiting in
 * pause(), then the main thread dereferences NULL: a core whose notes hold
 * N threads' registers (and their xsave state), for the reader's thread
 * limit (docs/system-reporter.md, "Bounds").
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t ready;

static void *
waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	for (;;)
		pause();
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4000;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN);
	pthread_barrier_init(&ready, NULL, (unsigned)n);
	for (int i = 1; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &a, waiter, NULL) != 0) {
			fprintf(stderr, "threads_many: thread %d: cannot start it\n", i);
			return 2;
		}
	}
	pthread_barrier_wait(&ready);
	*(volatile int *)0 = 1;
	return 0;
}
