/*
 * A crash while another thread holds the malloc lock.  malloc_info() keeps
 * the arena locked while it prints; printing into an unbuffered stream whose
 * writer never returns pins that lock.  A handler that called malloc would
 * deadlock here; postmortem must still write its report.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sample.h"

static volatile int lock_held;

static ssize_t
stuck_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	lock_held = 1;
	for (;;)
		pause();
	return (ssize_t)n;
}

static void *
hold_malloc_lock(void *arg)
{
	(void)arg;
	cookie_io_functions_t io = { .write = stuck_write };
	FILE *f = fopencookie(NULL, "w", io);
	setvbuf(f, NULL, _IONBF, 0);
	malloc_info(0, f);
	return NULL;
}

SAMPLE_FRAME static int
crash_while_malloc_locked(void)
{
	return *sample_null;
}

int
main(void)
{
	sample_install();
	free(malloc(64)); /* make sure the main arena exists */
	pthread_t t;
	pthread_create(&t, NULL, hold_malloc_lock, NULL);
	while (!lock_held)
		usleep(1000);
	int r = crash_while_malloc_locked();
	SAMPLE_KEEP_FRAME();
	return r;
}
