/*
 * An LD_PRELOAD shim for the tests of the thread lent to the walks
 * (reporter/capture/as_walker.c): the crash path's system calls go through
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
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "shim.h"

int *volatile shim_null;
static atomic_bool logged;

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
			shim_log("other\n", 6);
			if (shim_mode_is("fault"))
				*shim_null = 1;
			if (shim_mode_is("late"))
				shim_pause_ms(2000);
		}
		if (!lent && a[2] > 1)
			shim_pause_ms(20);
	}
	return fn(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
