/*
 * deep.c — what an unprivileged user can make a report cost: THREADS
 * threads (argv[1]) each DEPTH frames deep (argv[2]) in a recursion whose
 * frames hold distinct words, waiting; once standard input ends (the test
 * closes it for many at once) the main thread dereferences NULL.  Its
 * report walks THREADS x DEPTH frames (the engine stops at 512 a thread).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t ready;
static int depth;
static volatile int never;

static int __attribute__((noinline))
down(int n, volatile long *above)
{
	volatile long words[4] = { n, (long)above, n * 3, n * 7 };
	if (n > 0)
		return down(n - 1, words) + (int)words[0];
	pthread_barrier_wait(&ready);
	while (!never)
		pause();
	return 0;
}

static void *
thread(void *arg)
{
	(void)arg;
	down(depth, NULL);
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	depth = argc > 2 ? atoi(argv[2]) : 500;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 << 10);
	pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &a, thread, NULL) != 0) {
			fprintf(stderr, "deep: thread %d: cannot start it\n", i);
			return 2;
		}
	}
	pthread_barrier_wait(&ready);
	char c;
	while (read(0, &c, 1) > 0)
		;
	*(volatile int *)0 = 1;
	return 0;
}
