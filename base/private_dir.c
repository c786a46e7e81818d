/*
 * private_dir.c — opening the reports directory only when it is ours alone.
 * NOT AS-safe.
 *
 * Reports hold memory contents, paths and user names.  A directory another
 * user owns or may write to lets that user read or delete reports, or plant
 * one that `list` shows and `upload` sends; the default /tmp/postmortem-<uid>
 * can be created by anyone first.  So the reports directory must belong to
 * us and be writable by nobody else.  Below it, only we can create or
 * replace anything: its subdirectories need only be ours, and lose any
 * group or other bits.
 */
#include "reports_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
refuse(int fd)
{
	if (fd >= 0)
		close(fd);
	errno = EPERM;
	return -1;
}

/* pmi_private_dir_open, for the user me; *st is what was opened. */
static int
open_private(int at, const char *name, bool top, uid_t me, struct stat *st, char *why, size_t cap)
{
	struct stat link;
	/* Whoever made a symlink in its place chooses where reports go: only ours or root's are followed. */
	if (top && fstatat(at, name, &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode) &&
	    link.st_uid != me && link.st_uid != 0) {
		snprintf(why, cap, "a symbolic link owned by uid %u, not by you (uid %u)", (unsigned)link.st_uid,
		         (unsigned)me);
		return refuse(-1);
	}
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (top ? 0 : O_NOFOLLOW));
	if (fd < 0 || fstat(fd, st) != 0) {
		int e = errno;
		snprintf(why, cap, "%s", e == ELOOP ? "a symbolic link" : strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	if (st->st_uid != me) {
		snprintf(why, cap, "owned by uid %u, not by you (uid %u)", (unsigned)st->st_uid, (unsigned)me);
		return refuse(fd);
	}
	if (top && (st->st_mode & 022)) {
		snprintf(why, cap, "writable by other users (mode %04o)", (unsigned)(st->st_mode & 07777));
		return refuse(fd);
	}
	if (!top && (st->st_mode & 077))
		fchmod(fd, st->st_mode & 0700);
	return fd;
}

int
pmi_private_dir_open(int at, const char *name, bool top, char *why, size_t cap)
{
	struct stat st;
	return open_private(at, name, top, geteuid(), &st, why, cap);
}

/* Open (creating it when missing) directory name below root; -1 when it
 * cannot be had, with the reason in why. */
static int
open_or_make(int root, const char *name, uid_t me, struct stat *st, char *why, size_t cap)
{
	int fd = open_private(root, name, false, me, st, why, cap);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (mkdirat(root, name, 0700) != 0 && errno != EEXIST) {
		snprintf(why, cap, "cannot create %s/: %s", name, strerror(errno));
		return -1;
	}
	return open_private(root, name, false, me, st, why, cap);
}

int
pmi_reports_dir_prepare(const char *dir, struct stat *pending_st, int *runs)
{
	char why[256];
	int root = -1, pending = -1;
	uid_t me = geteuid();
	struct stat root_st;
	if (pmi_mkdirs(dir) == 0)
		root = open_private(AT_FDCWD, dir, true, me, &root_st, why, sizeof why);
	else
		snprintf(why, sizeof why, "%s", strerror(errno));
	/* Most starts find pending/ made: opened first, created only when missing. */
	if (root >= 0)
		pending = open_or_make(root, "pending", me, pending_st, why, sizeof why);
	int e = errno;
	/* The runs file only matters once reports can be kept; a run without it has no session. */
	if (runs)
		*runs = pending >= 0 ? openat(root, PMI_RUNS_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
	if (root >= 0)
		close(root);
	if (pending >= 0)
		return pending;
	fprintf(stderr, "postmortem: cannot keep reports in %s: %s\n", dir, why);
	errno = e;
	return -1;
}
