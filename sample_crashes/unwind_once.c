/* A crash in a pthread_once init routine: libc's once machinery sits
 * between the routine and its caller. */
#include <pthread.h>

#include "sample.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

SAMPLE_FRAME static void
init_and_crash(void)
{
	*sample_null = 1;
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME static int
run_once(void)
{
	int r = pthread_once(&once, init_and_crash);
	SAMPLE_KEEP_FRAME();
	return r;
}

int
main(void)
{
	sample_install();
	int r = run_once();
	SAMPLE_KEEP_FRAME();
	return r;
}
