/*
 * What the LD_PRELOAD shims of the lent-thread tests share (walk_shim.c,
 * sync_shim.c): the mode a test asks for, an append to the test's log, and
 * a sleep that a signal does not cut short.
 *
 *   PM_SHIM_MODE  what the lent thread does wrong ("fault", "late", ...)
 *   PM_SHIM_LOG   the file events are appended to
 */
#ifndef PM_TESTS_SHIM_H
#define PM_TESTS_SHIM_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline bool
shim_mode_is(const char *mode)
{
	const char *m = getenv("PM_SHIM_MODE");
	return m && strcmp(m, mode) == 0;
}

/* One write per event, so lines from two threads never interleave. */
static inline void
shim_log(const char *line, size_t n)
{
	const char *path = getenv("PM_SHIM_LOG");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return;
	if (write(fd, line, n) != (ssize_t)n)
		abort();
	close(fd);
}

static inline void
shim_pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
	while (nanosleep(&ts, &ts) != 0)
		;
}

#endif
