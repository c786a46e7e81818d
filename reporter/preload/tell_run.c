/*
 * tell_run.c — tell `postmortem run` which program image of its child the
 * preload library was in last and how it went (base/run_record.h), so that
 * a crash with no report can be explained from what the run could not see:
 * an exec into a program postmortem never reached, or one it reached whose
 * handler never ran.  NOT AS-safe: the constructor's, once per image, and
 * only under a run that asked (a getenv otherwise).
 */
#include "tell_run.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install.h"

/* The record's file, when the variable names a descriptor of this
 * process's parent (the run, not a program between) and it is the run's:
 * a regular file of ours that has no name.  -1 otherwise. */
static int
open_record(void)
{
	const char *where = getenv(PMI_RUN_RECORD_VAR);
	char mine[48];
	int k = snprintf(mine, sizeof mine, "/proc/%ld/fd/", (long)getppid());
	if (!where || k <= 0 || (size_t)k >= sizeof mine || strncmp(where, mine, (size_t)k) != 0 ||
	    !where[k] || strspn(where + k, "0123456789") != strlen(where + k))
		return -1;
	int fd = open(where, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* s and its NUL at buf + *n, cut to what fits (the last byte stays a NUL). */
static void
put(char *buf, size_t *n, const char *s)
{
	size_t room = PMI_RR_MAX_BYTES - *n, len = strnlen(s, room ? room - 1 : 0);
	if (room == 0)
		return;
	memcpy(buf + *n, s, len);
	buf[*n + len] = '\0';
	*n += len + 1;
}

/* Up to cap bytes of a /proc/self file; the count, 0 when unreadable. */
static size_t
slurp(const char *path, char *out, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;
	while (fd >= 0 && n < cap && (r = read(fd, out + n, cap - n)) > 0)
		n += (size_t)r;
	if (fd >= 0)
		close(fd);
	return n;
}

void
pmi_tell_run(const char *state, const char *why)
{
	int fd = open_record();
	char *buf = fd >= 0 ? malloc(PMI_RR_MAX_BYTES) : NULL;
	if (!buf) {
		if (fd >= 0)
			close(fd);
		return;
	}
	size_t n = 0;
	char text[PATH_MAX];
	snprintf(text, sizeof text, "%s%s%s", state, why ? " " : "", why ? why : "");
	put(buf, &n, text);
	size_t c = slurp("/proc/self/comm", text, 16);
	text[c && text[c - 1] == '\n' ? c - 1 : c] = '\0';
	put(buf, &n, text);
	ssize_t e = readlink("/proc/self/exe", text, sizeof text - 1);
	text[e > 0 ? e : 0] = '\0';
	put(buf, &n, text);
	put(buf, &n, getcwd(text, sizeof text) ? text : "");
	const char *path = getenv("PATH");
	put(buf, &n, path ? path : "");
	/* The arguments as the kernel keeps them: each ends with its NUL already. */
	size_t a = slurp("/proc/self/cmdline", buf + n, PMI_RR_MAX_BYTES - n);
	n += a;
	if (a && buf[n - 1] != '\0')
		buf[n - 1] = '\0';
	bool whole = ftruncate(fd, 0) == 0 && pwrite(fd, buf, n, 0) == (ssize_t)n;
	(void)whole; /* a record that could not be written only explains less */
	free(buf);
	close(fd);
}
