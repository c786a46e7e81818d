/* A thread started three seconds after the process crashes: the report's
 * launch time must still be the process's start (read from the main
 * thread's stat), not the thread's.  Main waits for it: under qemu-user a
 * process whose main thread has ended sometimes aborts in the emulator when
 * the fatal signal is raised again. */
#include <pthread.h>
#include <unistd.h>

#include "postmortem.h"

static int *volatile null_ptr;

static void *
crash(void *arg)
{
	(void)arg;
	*null_ptr = 1;
	return NULL;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	sleep(3);
	pthread_t t;
	if (pthread_create(&t, NULL, crash, NULL) != 0)
		return 3;
	pthread_join(t, NULL);
	return 0;
}
