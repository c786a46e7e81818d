/*
 * as_fds.c — AS-SAFE descriptors held from install (see as_fds.h).
 *
 * A descriptor number proves nothing by itself: the app may have closed it
 * and opened something else under the same number.  Each use checks the
 * device and inode first, so the handler never writes into, or closes,
 * something that is not ours.
 */
#include "as_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as_capture.h"

static bool
is_pending_dir(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == as_g.pending_dev &&
	       st.st_ino == as_g.pending_ino;
}

void
as_spares_take(void)
{
	for (int i = 0; i < PM_SPARE_FDS; i++)
		if (as_g.spare_fds[i] < 0)
			as_g.spare_fds[i] = fcntl(as_g.pending_fd, F_DUPFD_CLOEXEC, 0);
}

void
as_spares_free(void)
{
	for (int i = 0; i < PM_SPARE_FDS; i++) {
		if (is_pending_dir(as_g.spare_fds[i]))
			close(as_g.spare_fds[i]);
		as_g.spare_fds[i] = -1;
	}
}

/* Make fd (a directory, which st describes) the pending/ that is ours. */
static bool
adopt_pending(int fd, const struct stat *st)
{
	if (fd < 0)
		return false;
	as_g.pending_fd = fd;
	as_g.pending_dev = st->st_dev;
	as_g.pending_ino = st->st_ino;
	return true;
}

/* Open pending/ by path and make it the one that is ours. */
static bool
open_pending(void)
{
	struct stat st;
	int fd = open(as_g.pending_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0)
		return adopt_pending(fd, &st);
	if (fd >= 0)
		close(fd);
	return false;
}

bool
as_fds_open(int pending_fd, const struct stat *st)
{
	if (!adopt_pending(pending_fd, st))
		return false;
	as_spares_take();
	return true;
}

void
as_fds_close(void)
{
	as_spares_free();
	if (is_pending_dir(as_g.pending_fd))
		close(as_g.pending_fd);
	as_g.pending_fd = -1;
}

int
as_pending_fd(void)
{
	if (!is_pending_dir(as_g.pending_fd) && !open_pending())
		return -1;
	return as_g.pending_fd;
}
