/*
 * spool_caps.c — how much a spool may hold (docs/system-reporter.md,
 * "Bounds"): the per-user spool (<sysdir>/users/<uid>) and the private
 * spool (<sysdir>/private/<uid>) lie on the machine's own disk, filled by
 * crashes any user can cause, so each uid's is capped, in reports and in
 * bytes, and a report is made only while its spool is under both: looked
 * at before the analysis runs, nothing written past them.  The private
 * spool is looked at by root (it is root's), the per-user one by the
 * child that runs as its user.  What is looked at: the names and sizes
 * (blocks on the disk) of the pending/'s entries, nothing read, no link
 * followed, at most PM_DEST_SCAN_MAX of them (more: full).  NOT AS-safe.
 */
#include "handler.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool
pmi_spool_full(int pending, char *why, size_t cap)
{
	int dup_fd = openat(pending, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		snprintf(why, cap, "its spool cannot be read");
		return true;
	}
	uint64_t reports = 0, bytes = 0;
	int seen = 0;
	struct dirent *e;
	while ((e = readdir(d)) && ++seen <= PM_DEST_SCAN_MAX) {
		size_t n = strlen(e->d_name);
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		bytes += (uint64_t)st.st_blocks * 512;
		reports += e->d_name[0] != '.' && n > 6 && strcmp(e->d_name + n - 6, ".crash") == 0;
	}
	closedir(d);
	bool full = seen > PM_DEST_SCAN_MAX || reports >= PM_SPOOL_MAX_REPORTS || bytes >= PM_SPOOL_MAX_BYTES;
	if (full)
		snprintf(why, cap, "the spool holds %s%" PRIu64 " reports, %" PRIu64 " KiB: at its cap of %d reports or %d MiB",
		         seen > PM_DEST_SCAN_MAX ? "more than " : "", reports, bytes >> 10, PM_SPOOL_MAX_REPORTS,
		         PM_SPOOL_MAX_BYTES >> 20);
	return full;
}
