/* A snapshot on request while a second thread waits: a non-fatal report of
 * every thread, written like a crash report; exits 0. */
#include <pthread.h>
#include <stdio.h>

#include "postmortem.h"

static pthread_barrier_t started, done;

static void *
waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

int
main(void)
{
	pthread_t t;
	if (pm_install(NULL) != 0 || pthread_barrier_init(&started, NULL, 2) || pthread_barrier_init(&done, NULL, 2) ||
	    pthread_create(&t, NULL, waiter, NULL))
		return 1;
	pthread_barrier_wait(&started);
	int rc = pm_snapshot_write("asked for a snapshot");
	pthread_barrier_wait(&done);
	pthread_join(t, NULL);
	if (rc != 0)
		perror("pm_snapshot_write");
	return rc == 0 ? 0 : 1;
}
