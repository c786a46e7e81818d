/*
 * test_fs_order.c — how each filesystem gets a report durable
 * (reporter/landing/as_fs_order.c): one journal commit by the directory's fsync,
 * renames before the fsyncs, or each file fsync'd before its rename.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "reporter/landing/as_fs_order.h"

static as_fs_order
order_of(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert(fd >= 0, "%s", dir);
	as_fs_order r = as_fs_order_of(fd);
	close(fd);
	return r;
}

static long
fs_type(const char *dir)
{
	struct statfs st;
	cr_assert_eq(statfs(dir, &st), 0, "%s", dir);
	return (long)st.f_type;
}

Test(fs_order, tmpfs_orders_renames_and_procfs_does_not)
{
	if (fs_type("/dev/shm") == 0x01021994)
		cr_expect_eq(order_of("/dev/shm"), AS_FS_IN_MEMORY);
	cr_expect_eq(order_of("/proc"), AS_FS_UNORDERED);
	cr_expect_eq(order_of("/proc/self"), AS_FS_UNORDERED);
}

/* Whether ext4 on device `dev` has a journal, asked the way the code does
 * not: the ext4 filesystem whose /sys/class/block entry has that device
 * number, and its journal_task (a pid, or "<none>"). */
static bool
ext4_journal_by_sysfs(dev_t dev)
{
	DIR *d = opendir("/sys/fs/ext4");
	cr_assert_not_null(d);
	bool journal = false;
	char want[32], path[512], got[64];
	snprintf(want, sizeof want, "%u:%u", major(dev), minor(dev));
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		snprintf(path, sizeof path, "/sys/class/block/%s/dev", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool same = fgets(got, sizeof got, f) && strncmp(got, want, strlen(want)) == 0 &&
		            (got[strlen(want)] == '\n' || got[strlen(want)] == '\0');
		fclose(f);
		if (!same)
			continue;
		snprintf(path, sizeof path, "/sys/fs/ext4/%s/journal_task", e->d_name);
		f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		journal = fgets(got, sizeof got, f) && got[0] >= '0' && got[0] <= '9';
		fclose(f);
	}
	closedir(d);
	return journal;
}

/* The build tree's filesystem, whatever it is here: ext4 commits a report
 * with its directory's fsync exactly when it has a journal (else each file
 * is fsync'd before its rename), XFS and tmpfs order renames, others get
 * the order safe everywhere. */
Test(fs_order, the_build_trees_filesystem_is_judged_by_its_journal)
{
	const char *dir = ".";
	struct stat st;
	cr_assert_eq(stat(dir, &st), 0);
	long t = fs_type(dir);
	as_fs_order want = t == 0x58465342   ? AS_FS_ORDERED
	                   : t == 0x01021994 ? AS_FS_IN_MEMORY
	                   : t == 0xEF53 && ext4_journal_by_sysfs(st.st_dev) ? AS_FS_DIR_COMMITS_ALL
	                                                                   : AS_FS_UNORDERED;
	cr_expect_eq(order_of(dir), want, "filesystem type %#lx", (unsigned long)t);
}
