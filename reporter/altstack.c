/*
 * altstack.c — alternate signal stacks on every thread (see altstack.h).
 */
#include "altstack.h"

#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "as_sys.h"
#include "state.h"

/* The handler freezes threads, walks stacks with CFI and formats text: about
 * 40 KiB at its deepest.  Twice that, plus what the kernel needs. */
enum { HANDLER_STACK = 128 * 1024 };

static pthread_key_t stack_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_ok;
static int setup_acks; /* futex word: threads that have answered a broadcast */

struct own_stack {
	void *map;      /* guard page + stack */
	size_t size;
};

size_t
pm_altstack_size(void)
{
	size_t min = (size_t)getauxval(AT_MINSIGSTKSZ);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (min < (size_t)MINSIGSTKSZ)
		min = (size_t)MINSIGSTKSZ;
	return (min + HANDLER_STACK + page - 1) / page * page;
}

static void
free_stack(void *p)
{
	struct own_stack *s = p;
	stack_t off = { .ss_flags = SS_DISABLE };
	stack_t cur;
	/* Only disable it if it is still ours (not replaced by the app). */
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)s->map + (s->size - pm_altstack_size()))
		sigaltstack(&off, NULL);
	pm_altstack_known_remove(pm_sys_gettid());
	munmap(s->map, s->size);
	munmap(s, sizeof *s);
}

static void
make_key(void)
{
	key_ok = pthread_key_create(&stack_key, free_stack) == 0;
}

bool
pm_altstack_init(void)
{
	pthread_once(&key_once, make_key);
	return key_ok;
}

bool
pm_altstack_ensure(void)
{
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) {
		pm_altstack_known_add(pm_sys_gettid());
		return true; /* the thread has one (ours or the app's) */
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = pm_altstack_size();
	/* mmap, not malloc: this also runs in the setup-signal handler. */
	struct own_stack *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return false;
	s->size = size + page;
	s->map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->map == MAP_FAILED) {
		munmap(s, sizeof *s);
		return false;
	}
	/* The guard page below the stack turns an overflow of the handler
	 * itself into a clean fault instead of silent corruption. */
	mprotect(s->map, page, PROT_NONE);
	stack_t ss = { .ss_sp = (char *)s->map + page, .ss_size = size, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) != 0) {
		munmap(s->map, s->size);
		munmap(s, sizeof *s);
		return false;
	}
	if (key_ok)
		pthread_setspecific(stack_key, s);
	pm_altstack_known_add(pm_sys_gettid());
	return true;
}

void
pm_altstack_release(void)
{
	if (!key_ok)
		return;
	struct own_stack *s = pthread_getspecific(stack_key);
	if (s) {
		pthread_setspecific(stack_key, NULL);
		free_stack(s);
	}
}

void
pm_altstack_on_setup(void *uctx)
{
	/* sigreturn restores the alternate stack saved in the signal frame:
	 * record the new one there, or leaving the handler would undo it. */
	stack_t cur;
	if (pm_altstack_ensure() && sigaltstack(NULL, &cur) == 0)
		((ucontext_t *)uctx)->uc_stack = cur;
	__atomic_add_fetch(&setup_acks, 1, __ATOMIC_RELEASE);
	pm_sys_futex_wake(&setup_acks);
}

void
pm_altstack_broadcast(int sig, unsigned timeout_ms)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return;
	pid_t self = pm_sys_gettid(), pid = getpid();
	int sent = 0;
	__atomic_store_n(&setup_acks, 0, __ATOMIC_RELEASE);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid > 0 && tid != self && !pm_altstack_is_known(tid) && pm_sys_tgkill(pid, tid, sig) == 0)
			sent++;
	}
	closedir(d);
	uint64_t deadline = pm_sys_now_ns() + (uint64_t)timeout_ms * 1000000u;
	int acks;
	while ((acks = __atomic_load_n(&setup_acks, __ATOMIC_ACQUIRE)) < sent) {
		uint64_t now = pm_sys_now_ns();
		if (now >= deadline)
			break;
		pm_sys_futex_wait(&setup_acks, acks, deadline - now);
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
	pm_altstack_ensure();
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
	struct start *s = pm_g.installed ? malloc(sizeof *s) : NULL;
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int rc = real(t, attr, start_with_altstack, s);
	if (rc != 0)
		free(s);
	return rc;
}
