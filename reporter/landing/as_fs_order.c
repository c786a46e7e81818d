/*
 * as_fs_order.c — AS-SAFE: what a directory's filesystem promises about a
 * rename behind the blocks written before it (see as_fs_order.h).
 *
 * ext4 with and without a journal share one magic number; a journal shows
 * as /proc/fs/jbd2/<device>-8 (jbd2's entry for a journal in inode 8, the
 * one mkfs makes), the device named by /sys/dev/block/<major>:<minor>.  An
 * external journal is not recognised: such a filesystem gets the order
 * that is safe everywhere.
 */
#include "as_fs_order.h"

#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "as_memory.h"
#include "model.h"

enum {
	EXT4_MAGIC = 0xEF53,
	XFS_MAGIC = 0x58465342,
	TMPFS_MAGIC = 0x01021994,
};

/* glibc's dev_t layout, written out: major() and minor() are calls to
 * gnu_dev_major/minor (not on the allow-list) in an unoptimized build. */
static uint64_t
dev_major(uint64_t dev)
{
	return ((dev >> 8) & 0xfff) | ((dev >> 32) & ~(uint64_t)0xfff);
}

static uint64_t
dev_minor(uint64_t dev)
{
	return (dev & 0xff) | ((dev >> 12) & ~(uint64_t)0xff);
}

static bool
ext4_has_journal(int dir)
{
	struct stat st;
	if (fstat(dir, &st) != 0)
		return false;
	/* A device's link is short (../../devices/.../block/sda/sda1); a longer
	 * one is not followed, and the filesystem gets the order safe everywhere. */
	char path[96], num[24], link[256];
	as_strlcpy(path, "/sys/dev/block/", sizeof path);
	pmi_fmt_u64(num, sizeof num, dev_major(st.st_dev));
	as_strlcat(path, num, sizeof path);
	as_strlcat(path, ":", sizeof path);
	pmi_fmt_u64(num, sizeof num, dev_minor(st.st_dev));
	as_strlcat(path, num, sizeof path);
	long n = as_sys_readlink(path, link, sizeof link);
	if (n <= 0 || (size_t)n >= sizeof link)
		return false;
	link[n] = '\0';
	as_strlcpy(path, "/proc/fs/jbd2/", sizeof path);
	as_strlcat(path, as_basename(link), sizeof path);
	as_strlcat(path, "-8", sizeof path);
	int fd = as_open_ro(path);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

as_fs_order
as_fs_order_of(int dir)
{
	struct statfs fs;
	if (as_sys_fstatfs(dir, &fs) != 0)
		return AS_FS_UNORDERED;
	switch ((unsigned long)fs.f_type) {
	case XFS_MAGIC:
		return AS_FS_ORDERED;
	case TMPFS_MAGIC:
		return AS_FS_IN_MEMORY;
	case EXT4_MAGIC:
		return ext4_has_journal(dir) ? AS_FS_DIR_COMMITS_ALL : AS_FS_UNORDERED;
	default:
		return AS_FS_UNORDERED;
	}
}
