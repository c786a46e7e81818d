/*
 * An LD_PRELOAD shim for the tests of the frozen thread lent to the
 * report's landing (reporter/landing/as_sync_lent.c): it sees each fsync and
 * renameat the crash path makes, and which thread makes it.  The crash is
 * the main thread's (tid == pid): any other thread's fsync is the lent one.
 *
 *   PM_SHIM_LOG   one line an event, in order:
 *                   begin main|other NAME   an fsync of file NAME begins
 *                   end main|other NAME RC  it returned RC
 *                   rename NAME             NAME gets its final name
 *   PM_SHIM_MODE  "fault": the lent thread's first fsync faults;
 *                 "late": it first sleeps 2 s (the reporting thread gives
 *                 up on it long before); "fail": it returns -1 (EIO)
 *                 without syncing
 *
 * The main thread's fsyncs of files each sleep 20 ms first, so that the
 * lent thread, however late the machine runs it, has begun its fsync
 * before the main thread could take the job back.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "shim.h"

int *volatile sync_shim_null;
static atomic_bool began;

static void
log_line(const char *a, const char *b, const char *c, const char *d)
{
	char line[512];
	int n = snprintf(line, sizeof line, "%s %s%s%s%s%s\n", a, b, c ? " " : "", c ? c : "", d ? " " : "", d ? d : "");
	if (n <= 0 || (size_t)n >= sizeof line)
		abort();
	shim_log(line, (size_t)n);
}

/* The last part of what fd names ("pending" for the directory). */
static void
name_of(int fd, char *name, size_t cap)
{
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	path[n > 0 ? n : 0] = '\0';
	const char *slash = strrchr(path, '/');
	const char *last = slash ? slash + 1 : path;
	size_t n_last = strlen(last) < cap ? strlen(last) : cap - 1;
	memcpy(name, last, n_last);
	name[n_last] = '\0';
}

int
fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fsync");
	bool main_thread = gettid() == getpid();
	const char *who = main_thread ? "main" : "other";
	char name[256];
	name_of(fd, name, sizeof name);
	bool file = strcmp(name, "pending") != 0;
	log_line("begin", who, name, NULL);
	if (!main_thread && !atomic_exchange(&began, true)) {
		if (shim_mode_is("fault"))
			*sync_shim_null = 1;
		if (shim_mode_is("late"))
			shim_pause_ms(2000);
		if (shim_mode_is("fail")) {
			log_line("end", who, name, "-1");
			errno = EIO;
			return -1;
		}
	}
	if (main_thread && file)
		shim_pause_ms(20);
	int rc = real(fd);
	log_line("end", who, name, rc == 0 ? "0" : "-1");
	return rc;
}

int
renameat(int olddir, const char *old, int newdir, const char *new)
{
	static int (*real)(int, const char *, int, const char *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "renameat");
	log_line("rename", old, NULL, NULL);
	return real(olddir, old, newdir, new);
}
