/* A pthread_create that fails while asked to.  early_thread links it after
 * libpostmortem, so the library's own thread starts (which reach libc's
 * pthread_create through RTLD_NEXT) meet it: in early_thread's
 * "many_no_helper" mode, pm_install's helper thread cannot start. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "refuse_threads.h"

static atomic_bool refusing;
static atomic_int refused;

void
refuse_threads(bool on)
{
	atomic_store(&refusing, on);
}

int
threads_refused(void)
{
	return atomic_load(&refused);
}

int
pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (atomic_load(&refusing)) {
		atomic_fetch_add(&refused, 1);
		return EAGAIN;
	}
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	void *sym = dlsym(RTLD_NEXT, "pthread_create");
	memcpy(&real, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
	return real ? real(t, attr, fn, arg) : EAGAIN;
}
