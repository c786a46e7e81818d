/*
 * altstack.c — alternate signal stacks on every thread (see altstack.h).
 */
#include "altstack.h"

#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "as_altstack.h"
#include "as_capture.h"
#include "as_memory.h"

/* The handler freezes threads, walks stacks with CFI and formats text: about
 * 40 KiB at its deepest.  Twice that, plus what the kernel needs.  A frozen
 * thread's handler (as_on_freeze) needs a few hundred bytes below the
 * kernel's frame. */
enum { HANDLER_STACK = 128 * 1024, FREEZE_HANDLER_STACK = 512 };

/* The kernel's own signal frame, as it tells it (glibc's MINSIGSTKSZ is a
 * generous bound: 13 KiB where the frame takes 3.4). */
static size_t
signal_frame_size(void)
{
	size_t frame = (size_t)getauxval(AT_MINSIGSTKSZ);
	return frame ? frame : (size_t)MINSIGSTKSZ;
}

PM_START_DATA static pthread_key_t stack_key;
PM_START_DATA static pthread_once_t key_once = PTHREAD_ONCE_INIT;
PM_START_DATA static bool key_ok;

size_t
pmi_altstack_size(void)
{
	size_t min = (size_t)getauxval(AT_MINSIGSTKSZ);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (min < (size_t)MINSIGSTKSZ)
		min = (size_t)MINSIGSTKSZ;
	return (min + HANDLER_STACK + page - 1) / page * page;
}

/*
 * Stacks of threads that have ended, for the next threads to start: a
 * stack's top page is written when it is made (as_altstack_make), and
 * unmapping it again would cost a TLB shootdown at every thread's end.
 * Reused, a thread that starts pays for no mapping and no page.
 */
enum { POOL_CAP = 64 };

/* Lock-free, so that a fork while another thread holds it cannot leave
 * the child's next pthread_create waiting forever. */
static _Atomic(void *) pool[POOL_CAP];

static void *
pool_take(void)
{
	for (size_t i = 0; i < POOL_CAP; i++)
		if (atomic_load(&pool[i])) {
			void *map = atomic_exchange(&pool[i], NULL);
			if (map)
				return map;
		}
	return NULL;
}

/* Keep map for another thread, or unmap it when the pool is full. */
static void
pool_give(void *map)
{
	for (size_t i = 0; i < POOL_CAP; i++) {
		void *empty = NULL;
		if (atomic_compare_exchange_strong(&pool[i], &empty, map))
			return;
	}
	munmap(map, as_altstack_map_size());
}

/* The calling thread stops using map, a stack's whole mapping
 * (as_altstack_make).  False while it runs on it (pthread_exit or
 * pm_uninstall from a signal handler): the mapping must then stay as it
 * is, neither unmapped nor given to another thread. */
static bool
leave_stack(void *map)
{
	size_t size = as_altstack_map_size();
	stack_t off = { .ss_flags = SS_DISABLE };
	stack_t cur;
	/* Only disable it if it is still ours (not replaced by the app). */
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)map + (size - pmi_altstack_size())) {
		if (cur.ss_flags & SS_ONSTACK)
			return false;
		sigaltstack(&off, NULL);
	}
	as_altstack_known_remove(as_sys_gettid());
	return true;
}

/* At a thread's end: its stack goes to the next thread. */
static void
end_thread(void *map)
{
	if (leave_stack(map))
		pool_give(map);
}

static void
make_key(void)
{
	key_ok = pthread_key_create(&stack_key, end_thread) == 0;
}

bool
pmi_altstack_init(void)
{
	pthread_once(&key_once, make_key);
	as_altstack_set_geometry(pmi_altstack_size(), (size_t)sysconf(_SC_PAGESIZE),
	                         signal_frame_size() + FREEZE_HANDLER_STACK);
	return key_ok;
}

bool
pmi_altstack_ensure(bool installer)
{
	void *made, *spare = installer ? NULL : pool_take();
	stack_t now;
	bool ok = as_altstack_make(&made, &now, installer ? AS_ALTSTACK_INSTALLER : AS_ALTSTACK_STARTED, spare);
	if (spare && made != spare)
		pool_give(spare);
	if (!ok)
		return false;
	if (made && key_ok)
		pthread_setspecific(stack_key, made);
	return true;
}

void
pmi_altstack_release(void)
{
	if (!key_ok)
		return;
	void *map = pthread_getspecific(stack_key);
	if (map) {
		pthread_setspecific(stack_key, NULL);
		if (leave_stack(map))
			munmap(map, as_altstack_map_size());
	}
}

/* ---- pthread_create interposition -------------------------------------- */

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *
start_with_altstack(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	pmi_altstack_ensure(false);
	return s.fn(s.arg);
}

int
pmi_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static create_fn *real;
	if (!real) {
		void *sym = dlsym(RTLD_NEXT, "pthread_create");
		memcpy(&real, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
	}
	return real ? real(t, attr, fn, arg) : EAGAIN;
}

/*
 * Our definition comes before libc's in symbol lookup for programs linked
 * with libpostmortem (and for any program under the LD_PRELOAD library), so
 * every pthread_create reaches here; the real one is found with RTLD_NEXT.
 */
int
pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start *s = as_g.installed ? malloc(sizeof *s) : NULL;
	if (!s)
		return pmi_real_pthread_create(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int rc = pmi_real_pthread_create(t, attr, start_with_altstack, s);
	if (rc != 0)
		free(s);
	return rc;
}
