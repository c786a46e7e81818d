/* A thread blocks every signal, so it cannot be stopped for the report: the
 * crash report must still list it, by name, saying why it has no stack. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;
static atomic_int ready;

static void *
deaf(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "deaf-worker");
	atomic_store(&ready, 1);
	for (;;)
		pause();
	return NULL;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	pthread_t t;
	pthread_create(&t, NULL, deaf, NULL);
	while (!atomic_load(&ready))
		usleep(1000);
	return *null_pointer;
}
