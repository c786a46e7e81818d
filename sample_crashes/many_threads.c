/* A crash with 64 other threads alive, each parked in a different blocking call. */
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"

enum { WORKERS = 64 };

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t ready;
static int pipe_fds[2];

SAMPLE_FRAME static void
park_in_cond_wait(void)
{
	pthread_barrier_wait(&ready);
	pthread_mutex_lock(&gate);
	for (;;)
		pthread_cond_wait(&never, &gate);
}

SAMPLE_FRAME static void
park_in_read(void)
{
	char c;
	pthread_barrier_wait(&ready);
	while (read(pipe_fds[0], &c, 1) != 0)
		;
}

SAMPLE_FRAME static void
park_in_nanosleep(void)
{
	pthread_barrier_wait(&ready);
	for (;;) {
		struct timespec ts = { 100, 0 };
		nanosleep(&ts, NULL);
	}
}

SAMPLE_FRAME static void
park_in_poll(void)
{
	pthread_barrier_wait(&ready);
	for (;;)
		poll(NULL, 0, 100000);
}

static void *
worker(void *arg)
{
	switch ((long)arg % 4) {
	case 0: park_in_cond_wait(); break;
	case 1: park_in_read(); break;
	case 2: park_in_nanosleep(); break;
	default: park_in_poll(); break;
	}
	return NULL;
}

SAMPLE_FRAME static int
crash_with_threads(void)
{
	return *sample_null;
}

int
main(void)
{
	sample_install();
	if (pipe(pipe_fds) != 0)
		return 2;
	pthread_barrier_init(&ready, NULL, WORKERS + 1);
	pthread_t t[WORKERS];
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&ready);
	usleep(20000); /* let every worker reach its blocking call */
	int r = crash_with_threads();
	SAMPLE_KEEP_FRAME();
	return r;
}
