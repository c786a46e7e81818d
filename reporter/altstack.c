/*
 * altstack.c — alternate signal stacks on every thread (see altstack.h).
 */
#include "altstack.h"

#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "as_altstack.h"
#include "as_dirents.h"
#include "as_sys.h"
#include "control_send.h"
#include "start_data.h"
#include "state.h"

/* The handler freezes threads, walks stacks with CFI and formats text: about
 * 40 KiB at its deepest.  Twice that, plus what the kernel needs. */
enum { HANDLER_STACK = 128 * 1024 };

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

/* map: a stack's whole mapping (as_altstack_make). */
static void
free_stack(void *map)
{
	size_t size = as_altstack_map_size();
	stack_t off = { .ss_flags = SS_DISABLE };
	stack_t cur;
	/* Only disable it if it is still ours (not replaced by the app). */
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)map + (size - pmi_altstack_size()))
		sigaltstack(&off, NULL);
	as_altstack_known_remove(as_sys_gettid());
	munmap(map, size);
}

static void
make_key(void)
{
	key_ok = pthread_key_create(&stack_key, free_stack) == 0;
}

bool
pmi_altstack_init(void)
{
	pthread_once(&key_once, make_key);
	as_altstack_set_geometry(pmi_altstack_size(), (size_t)sysconf(_SC_PAGESIZE));
	return key_ok;
}

bool
pmi_altstack_ensure(void)
{
	void *made;
	stack_t now;
	if (!as_altstack_make(&made, &now))
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
		free_stack(map);
	}
}

void
pmi_altstack_broadcast(int sig)
{
	char buf[4096];
	as_dirents tasks;
	siginfo_t info;
	bool info_made = false; /* a process with one thread needs none (getpid, getuid) */
	pid_t self = as_sys_gettid(), tid;
	if (!as_dirents_open(&tasks, "/proc/self/task", buf, sizeof buf))
		return;
	while (as_dirents_next_tid(&tasks, &tid)) {
		if (tid == self || as_altstack_is_known(tid))
			continue;
		if (!info_made)
			pmi_control_info(&info, sig, PM_CONTROL_SETUP);
		info_made = true;
		pmi_control_send(info.si_pid, tid, &info);
	}
	as_dirents_close(&tasks);
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
	pmi_altstack_ensure();
	return s.fn(s.arg);
}

/*
 * Our definition comes before libc's in symbol lookup for programs linked
 * with libpostmortem (and for any program under the LD_PRELOAD library), so
 * every pthread_create reaches here; the real one is found with RTLD_NEXT.
 */
int
pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static create_fn *real;
	if (!real) {
		void *sym = dlsym(RTLD_NEXT, "pthread_create");
		memcpy(&real, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
	}
	if (!real)
		return EAGAIN;
	struct start *s = as_g.installed ? malloc(sizeof *s) : NULL;
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int rc = real(t, attr, start_with_altstack, s);
	if (rc != 0)
		free(s);
	return rc;
}
