/*
 * An LD_PRELOAD shim that makes the handler fault: the first write(2) made
 * on an alternate signal stack dereferences NULL, as a bug in the writer
 * would.  postmortem must then write a minimal report and die of the
 * ORIGINAL signal.
 */

#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int faulted;
int *volatile shim_null;

ssize_t
write(int fd, const void *buf, size_t n)
{
	static void *real;
	ssize_t (*fn)(int, const void *, size_t);
	stack_t ss;
	if (!faulted && sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK)) {
		faulted = 1;
		*shim_null = 1;
	}
	if (!real)
		real = dlsym(RTLD_NEXT, "write");
	memcpy(&fn, &real, sizeof real);
	return fn(fd, buf, n);
}
