/*
 * threads17.c — 17 threads: 16 each at its own depth of recursion (1 to 16
 * frames of descend()), one blocking every signal, then the main thread
 * dereferences NULL.  With "hold" it waits instead (for gcore), and with
 * "big N" it first touches N MiB (a core larger than the readers' 64 MiB).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t ready;
static volatile int forever = 1;

static __attribute__((noinline)) void
descend(int left)
{
	volatile char pad[64];
	pad[0] = (char)left;
	if (left > 1)
		descend(left - 1);
	else {
		pthread_barrier_wait(&ready);
		while (forever)
			pause();
	}
	pad[1] = pad[0];
}

static void *
worker(void *arg)
{
	int depth = (int)(long)arg;
	if (depth == 0) { /* node's inspector thread, say: no signal reaches it */
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		depth = 3;
	}
	descend(depth);
	return NULL;
}

int
main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "big") == 0) {
		size_t n = (size_t)atoi(argv[2]) << 20;
		char *p = malloc(n);
		memset(p, 0x5a, n);
	}
	pthread_t t[16];
	pthread_barrier_init(&ready, NULL, 17);
	for (long i = 0; i < 16; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&ready);
	if (argc > 1 && strcmp(argv[argc - 1], "hold") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	*(volatile int *)0 = 1;
	return 0;
}
