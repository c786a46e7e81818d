/* A worker crashes while the main thread is inside the dynamic linker's lazy
 * binding: main's first call to lazy_target() went through the PLT to
 * _dl_runtime_resolve, which runs the target's ifunc resolver (lazy_target.c)
 * and waits there.  arm64 glibc's CFI for that trampoline leaves the CFA 16
 * bytes below the caller's sp (the PLT's push): main's walk must still reach
 * _start. */
#include <pthread.h>
#include <sched.h>

#include "lazy_target.h"
#include "sample.h"

SAMPLE_FRAME static void
crash_in_worker(void)
{
	*sample_null = 1;
	SAMPLE_KEEP_FRAME();
}

static void *
worker_main(void *arg)
{
	while (!lazy_resolving)
		sched_yield();
	crash_in_worker();
	SAMPLE_KEEP_FRAME();
	return arg;
}

SAMPLE_FRAME static int
bind_lazily(void)
{
	int r = lazy_target();
	SAMPLE_KEEP_FRAME();
	return r;
}

/* The worker runs on its own; main's next call is the lazily bound one. */
int
main(void)
{
	pthread_t worker;
	sample_install();
	return pthread_create(&worker, NULL, worker_main, NULL) == 0 ? bind_lazily() : 2;
}
