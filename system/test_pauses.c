/*
 * test_pauses.c — the pauses the system tests ask the handler for, to
 * catch a step in the act (docs/system-reporter.md, "Tests hold the
 * handler"): the file <sysdir>/test-pause, read only when root owns it and
 * nobody else may write it; no such file, no pause.  NOT AS-safe.
 */
#include "handler.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pm_pauses
pmi_pauses_read(const char *sysdir)
{
	pm_pauses p = { 0 };
	char path[PATH_MAX], buf[256];
	snprintf(path, sizeof path, "%s/test-pause", sysdir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return p;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022)
	                    ? read(fd, buf, sizeof buf - 1)
	                    : -1;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		int ms;
		unsigned long long bytes;
		if (sscanf(line, "proc %d", &ms) == 1)
			p.proc_ms = ms;
		else if (sscanf(line, "core %d", &ms) == 1)
			p.core_ms = ms;
		else if (sscanf(line, "destination %d", &ms) == 1)
			p.destination_ms = ms;
		else if (sscanf(line, "analysis %d", &ms) == 1)
			p.analysis_ms = ms;
		else if (sscanf(line, "previous %d", &ms) == 1)
			p.previous_ms = ms;
		else if (sscanf(line, "max-bytes %llu", &bytes) == 1)
			p.max_bytes = bytes;
	}
	return p;
}

void
pmi_pause(int ms)
{
	if (ms > 0)
		nanosleep(&(struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000 }, NULL);
}
