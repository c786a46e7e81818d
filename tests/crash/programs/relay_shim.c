/*
 * An LD_PRELOAD shim for the tests of the freeze's relayed requests
 * (reporter/as_freeze_relay.h): the crash path's system calls go through
 * syscall(3), so it sees each rt_tgsigqueueinfo and which thread makes it.
 * The crash is the main thread's (tid == pid): a freeze request sent by any
 * other thread is relayed by a thread that answered.
 *
 *   PM_SHIM_LOG   "relay" is written there at the first relayed request
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The freeze request's tag (reporter/state.h, PM_CONTROL_FREEZE). */
enum { FREEZE_TAG = 0x706d5346 };

static atomic_bool logged;

static void
log_relay(void)
{
	const char *path = getenv("PM_SHIM_LOG");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return;
	if (write(fd, "relay\n", 6) != 6)
		abort();
	close(fd);
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
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long), d = va_arg(ap, long),
	     e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_rt_tgsigqueueinfo && d && ((const siginfo_t *)d)->si_value.sival_int == FREEZE_TAG &&
	    gettid() != getpid() && !atomic_exchange(&logged, true))
		log_relay();
	return fn(nr, a, b, c, d, e, f);
}
