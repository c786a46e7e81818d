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

#include "state.h"

static bool
is_pending_dir(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == pm_g.pending_dev &&
	       st.st_ino == pm_g.pending_ino;
}

void
pm_as_spares_take(void)
{
	for (int i = 0; i < PM_SPARE_FDS; i++)
		if (pm_g.spare_fds[i] < 0)
			pm_g.spare_fds[i] = fcntl(pm_g.pending_fd, F_DUPFD_CLOEXEC, 0);
}

void
pm_as_spares_free(void)
{
	for (int i = 0; i < PM_SPARE_FDS; i++) {
		if (is_pending_dir(pm_g.spare_fds[i]))
			close(pm_g.spare_fds[i]);
		pm_g.spare_fds[i] = -1;
	}
}

/* Open pending/ by path and make it the one that is ours. */
static bool
open_pending(void)
{
	struct stat st;
	int fd = open(pm_g.pending_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		return false;
	pm_g.pending_fd = fd;
	pm_g.pending_dev = st.st_dev;
	pm_g.pending_ino = st.st_ino;
	return true;
}

bool
pm_as_fds_open(void)
{
	if (!open_pending())
		return false;
	pm_as_spares_take();
	return true;
}

void
pm_as_fds_close(void)
{
	pm_as_spares_free();
	if (is_pending_dir(pm_g.pending_fd))
		close(pm_g.pending_fd);
	pm_g.pending_fd = -1;
}

int
pm_as_pending_fd(void)
{
	if (!is_pending_dir(pm_g.pending_fd) && !open_pending())
		return -1;
	return pm_g.pending_fd;
}
