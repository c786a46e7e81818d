/*
 * interpose.c — an LD_PRELOAD library that catches calls a crash handler
 * must never make.
 *
 * malloc, calloc, realloc, free, pthread_mutex_lock, pthread_setspecific,
 * dl_iterate_phdr and dladdr are wrapped.  A call made inside a handler is
 * recorded as a line "<function>" in the file named by $PM_INTERPOSE_LOG,
 * with write(2) at once (the process is about to die).  Inside a handler
 * means: on the thread's alternate signal stack (postmortem's fatal-signal,
 * freeze and sample handlers), or in a handler of a real-time signal, which
 * this library wraps as sigaction installs it — the control signal also
 * runs on threads that have no alternate stack yet (the setup at install).
 * The first line, "loaded", proves the library was in the process.
 */

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static int log_fd = -1;

__attribute__((constructor)) static void
open_log(void)
{
	const char *path = getenv("PM_INTERPOSE_LOG");
	if (path)
		log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (log_fd >= 0 && write(log_fd, "loaded\n", 7) != 7)
		log_fd = -1;
}

/* The real function behind a wrapper, looked up on first use. */
static void *
next(const char *name, void **cache)
{
	if (!*cache)
		*cache = dlsym(RTLD_NEXT, name);
	return *cache;
}

/* Real-time signal handlers as the program installed them, run by rt_trampoline. */
typedef void rt_handler(int, siginfo_t *, void *);
static rt_handler *rt_handlers[_NSIG];
static __thread int rt_depth __attribute__((tls_model("initial-exec")));

static void
rt_trampoline(int sig, siginfo_t *info, void *uctx)
{
	rt_depth++;
	rt_handlers[sig](sig, info, uctx);
	rt_depth--;
}

int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static void *real;
	int (*fn)(int, const struct sigaction *, struct sigaction *);
	void *p = next("sigaction", &real);
	memcpy(&fn, &p, sizeof p);
	rt_handler *before = sig >= SIGRTMIN && sig <= SIGRTMAX ? rt_handlers[sig] : NULL;
	struct sigaction wrapped;
	if (act && sig >= SIGRTMIN && sig <= SIGRTMAX && (act->sa_flags & SA_SIGINFO)) {
		wrapped = *act;
		wrapped.sa_sigaction = rt_trampoline;
		rt_handlers[sig] = act->sa_sigaction;
		act = &wrapped;
	}
	int rc = fn(sig, act, old);
	if (rc == 0 && old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction == rt_trampoline)
		old->sa_sigaction = before;
	return rc;
}

static int
in_signal_handler(void)
{
	stack_t ss;
	return rt_depth > 0 || (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK));
}

static void
record(const char *fn)
{
	if (log_fd < 0 || !in_signal_handler())
		return;
	char line[64];
	size_t n = strlen(fn);
	memcpy(line, fn, n);
	line[n++] = '\n';
	if (write(log_fd, line, n) != (ssize_t)n)
		log_fd = -1;
}

void *
malloc(size_t n)
{
	record("malloc");
	return __libc_malloc(n);
}

void *
calloc(size_t a, size_t b)
{
	record("calloc");
	return __libc_calloc(a, b);
}

void *
realloc(void *p, size_t n)
{
	record("realloc");
	return __libc_realloc(p, n);
}

void
free(void *p)
{
	record("free");
	__libc_free(p);
}

int
pthread_mutex_lock(pthread_mutex_t *m)
{
	static void *real;
	int (*fn)(pthread_mutex_t *);
	void *p = next("pthread_mutex_lock", &real);
	memcpy(&fn, &p, sizeof p);
	record("pthread_mutex_lock");
	return fn(m);
}

int
dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	static void *real;
	int (*fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
	void *p = next("dl_iterate_phdr", &real);
	memcpy(&fn, &p, sizeof p);
	record("dl_iterate_phdr");
	return fn(cb, data);
}

int
dladdr(const void *addr, Dl_info *info)
{
	static void *real;
	int (*fn)(const void *, Dl_info *);
	void *p = next("dladdr", &real);
	memcpy(&fn, &p, sizeof p);
	record("dladdr");
	return fn(addr, info);
}

int
pthread_setspecific(pthread_key_t key, const void *value)
{
	static void *real;
	int (*fn)(pthread_key_t, const void *);
	void *p = next("pthread_setspecific", &real);
	memcpy(&fn, &p, sizeof p);
	record("pthread_setspecific");
	return fn(key, value);
}
