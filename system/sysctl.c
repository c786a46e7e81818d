/*
 * sysctl.c — the three kernel settings the system reporter changes and
 * restores byte for byte: kernel.core_pattern, kernel.core_pipe_limit,
 * fs.suid_dumpable.  NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int
open_sysctl(const char *name, int flags)
{
	char path[128];
	snprintf(path, sizeof path, "/proc/sys/%s", name);
	return open(path, flags | O_CLOEXEC | O_NOFOLLOW);
}

bool
pmi_sysctl_read(const char *name, char *out, size_t cap)
{
	int fd = open_sysctl(name, O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, out, cap - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return false;
	}
	/* A read ends with the newline the kernel adds; the value cannot hold one. */
	if (n > 0 && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
	return true;
}

bool
pmi_sysctl_write(const char *name, const char *value)
{
	int fd = open_sysctl(name, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return false;
	size_t len = strlen(value);
	ssize_t n = write(fd, value, len);
	int e = errno;
	if (close(fd) != 0 && n >= 0)
		return false;
	errno = e;
	return n == (ssize_t)len;
}

bool
pmi_settings_read(pm_core_settings *s, char *why, size_t cap)
{
	static const char *const names[] = { "kernel/core_pattern", "kernel/core_pipe_limit", "fs/suid_dumpable" };
	char *outs[] = { s->pattern, s->pipe_limit, s->suid_dumpable };
	size_t caps[] = { sizeof s->pattern, sizeof s->pipe_limit, sizeof s->suid_dumpable };
	for (size_t i = 0; i < 3; i++)
		if (!pmi_sysctl_read(names[i], outs[i], caps[i])) {
			snprintf(why, cap, "cannot read /proc/sys/%s: %s", names[i], strerror(errno));
			return false;
		}
	return true;
}
