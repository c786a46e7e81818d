/*
 * An LD_PRELOAD shim for the tests of the thread lent to the walks
 * (reporter/as_walker.c): the crash path's system calls go through
 * syscall(3), so it sees each process_vm_readv and which thread makes it.
 * The crash is the main thread's (tid == pid): any other thread reading
 * memory during it is the lent one.
 *
 *   PM_SHIM_LOG   "other" is written there at the lent thread's first read
 *   PM_SHIM_MODE  "fault": the lent thread's first read faults;
 *                 "late": it first sleeps 2 s (the reporting thread gives
 *                 up on it long before)
 *
 * The main thread's reads of many stacks at once (a batch's windows) each
 * sleep 20 ms first, so that the lent thread, however late the machine
 * runs it, takes batches before the main thread has taken them all.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int *volatile shim_null;
static atomic_bool logged;

static bool
is_mode(const char *mode)
{
	const char *m = getenv("PM_SHIM_MODE");
	return m && strcmp(m, mode) == 0;
}

static void
log_other(void)
{
	const char *path = getenv("PM_SHIM_LOG");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return;
	if (write(fd, "other\n", 6) != 6)
		abort();
	close(fd);
}

static void
pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
	while (nanosleep(&ts, &ts) != 0)
		;
}

long
syscall(long nr, ...)
{
	static void *cache;
	long (*fn)(long, ...);
	if (!cache)
		cache = dlsym(RTLD_NEXT, "syscall");
	memcpy(&fn, &cache, sizeof cache);
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_process_vm_readv) {
		bool lent = gettid() != getpid();
		if (lent && !atomic_exchange(&logged, true)) {
			log_other();
			if (is_mode("fault"))
				*shim_null = 1;
			if (is_mode("late"))
				pause_ms(2000);
		}
		if (!lent && a[2] > 1)
			pause_ms(20);
	}
	return fn(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
