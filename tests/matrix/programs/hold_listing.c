/*
 * hold_listing.c — LD_PRELOAD shim for thread_flood.c: when the crash
 * handler opens /proc/self/task to list the threads, wait until the other
 * crasher (the program's crasher_tids) sleeps, i.e. waits for the report in
 * postmortem's handler.  Bounded (10 s), by state, not by a guessed delay.
 * Runs inside a signal handler: raw system calls only.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int *tids;

__attribute__((constructor)) static void
find_tids(void)
{
	tids = dlsym(RTLD_DEFAULT, "crasher_tids");
}

/* The kernel's one-letter state of thread tid, 0 if unknown. */
static char
state_of(int tid)
{
	char path[64] = "/proc/self/task/", digits[12], stat[512];
	int n = 0;
	unsigned v = (unsigned)tid;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	size_t at = strlen(path);
	while (n > 0)
		path[at++] = digits[--n];
	memcpy(path + at, "/stat", 6);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
	long len = fd < 0 ? -1 : syscall(SYS_read, fd, stat, sizeof stat - 1);
	if (fd >= 0)
		syscall(SYS_close, fd);
	for (long i = len - 1; i > 0; i--)
		if (stat[i] == ')')
			return i + 2 < len ? stat[i + 2] : 0;
	return 0;
}

static void
hold(const char *path)
{
	if (!tids || strcmp(path, "/proc/self/task") != 0)
		return;
	int self = (int)syscall(SYS_gettid);
	int other = tids[0] == self ? tids[1] : tids[0];
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < 10000 && other && state_of(other) != 'S'; i++)
		syscall(SYS_nanosleep, &ms, NULL);
}

static int
open_at(const char *path, int flags, va_list ap)
{
	hold(path);
	mode_t mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

/* Both names: with _FILE_OFFSET_BITS=64 callers use open64, others open. */
int plain_open(const char *path, int flags, ...) __asm__("open");

int
plain_open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int fd = open_at(path, flags, ap);
	va_end(ap);
	return fd;
}

int
open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int fd = open_at(path, flags, ap);
	va_end(ap);
	return fd;
}
