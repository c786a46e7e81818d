/* Names a process chooses, with a newline in each: the test runs this program
 * as a copy whose file name is "evil\nProcess: x [1]"; it names its main
 * thread "m\nProcess: x [1" and a second thread "w\nThread 0 Cr" (the kernel
 * keeps 15 bytes), then the second thread dereferences NULL. */
#include <pthread.h>
#include <sys/prctl.h>

#include "postmortem.h"

static pthread_barrier_t named;
static int *volatile null_pointer;

static void *
worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "w\nThread 0 Cr");
	pthread_barrier_wait(&named);
	return (void *)(long)*null_pointer;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	prctl(PR_SET_NAME, "m\nProcess: x [1");
	pthread_barrier_init(&named, NULL, 2);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&named);
	pthread_join(t, NULL);
	return 0;
}
