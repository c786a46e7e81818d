/*
 * test_open_file.c — how the engine opens a file a target or a core names
 * (reporter/memory/as_util.c, as_open_file): no link in any component, no
 * "..", never above the directory it is beneath, a regular file only (a
 * FIFO does not block it, a device is not opened), the same on a kernel
 * without openat2 (a seccomp filter makes it ENOSYS), and a file server
 * answers alone where one is set.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reporter/memory/as_util.h"

static char root[64];

static void
put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	cr_assert(f, "%s", p);
	fputs(text, f);
	fclose(f);
}

static void
make_tree(void)
{
	snprintf(root, sizeof root, "/tmp/pm-open-file-XXXXXX");
	cr_assert(mkdtemp(root));
	char p[PATH_MAX], q[PATH_MAX];
	snprintf(p, sizeof p, "%s/real", root);
	cr_assert_eq(mkdir(p, 0700), 0);
	put("real/lib.so", "lib");
	put("secret", "secret");
	snprintf(p, sizeof p, "%s/link", root);
	snprintf(q, sizeof q, "%s/real", root);
	cr_assert_eq(symlink(q, p), 0);
	snprintf(p, sizeof p, "%s/real/last", root);
	cr_assert_eq(symlink("lib.so", p), 0);
	snprintf(p, sizeof p, "%s/real/fifo", root);
	cr_assert_eq(mkfifo(p, 0600), 0);
}

static void
remove_tree(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(open_file, .init = make_tree, .fini = remove_tree);

/* What as_open_file gives for root/rel: the file's first bytes, or "" for none. */
static const char *
opened(int dirfd, const char *rel, int how)
{
	static char buf[64];
	char p[PATH_MAX];
	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof p, "%s/%s", root, rel);
	else
		snprintf(p, sizeof p, "%s", rel);
	int fd = as_open_file(dirfd, p, how);
	buf[0] = '\0';
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof buf - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return buf;
}

Test(open_file, a_regular_file_by_its_canonical_path)
{
	cr_expect_str_eq(opened(AT_FDCWD, "real/lib.so", AS_OPEN_NO_LINKS), "lib");
}

Test(open_file, no_link_in_any_component)
{
	cr_expect_str_eq(opened(AT_FDCWD, "link/lib.so", AS_OPEN_NO_LINKS), "", "a directory that is a link");
	cr_expect_str_eq(opened(AT_FDCWD, "real/last", AS_OPEN_NO_LINKS), "", "a last component that is a link");
	cr_expect_str_eq(opened(AT_FDCWD, "link/lib.so", AS_OPEN_FOLLOW), "lib", "followed when asked");
}

Test(open_file, no_dot_dot)
{
	cr_expect_str_eq(opened(AT_FDCWD, "real/../secret", AS_OPEN_NO_LINKS), "");
}

Test(open_file, never_above_the_directory_it_is_beneath)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/real", root);
	int dir = open(p, O_PATH | O_DIRECTORY);
	cr_assert(dir >= 0);
	cr_expect_str_eq(opened(dir, "/lib.so", AS_OPEN_NO_LINKS | AS_OPEN_BENEATH), "lib", "an absolute path, beneath");
	cr_expect_str_eq(opened(dir, "../secret", AS_OPEN_BENEATH), "");
	cr_expect_str_eq(opened(dir, "last", AS_OPEN_NO_LINKS | AS_OPEN_BENEATH), "");
	close(dir);
}

Test(open_file, a_fifo_neither_blocks_nor_opens, .timeout = 10)
{
	cr_expect_str_eq(opened(AT_FDCWD, "real/fifo", AS_OPEN_NO_LINKS), "");
	cr_expect_str_eq(opened(AT_FDCWD, "real/fifo", AS_OPEN_FOLLOW), "");
}

Test(open_file, a_device_is_not_a_file)
{
	cr_expect_eq(as_open_file(AT_FDCWD, "/dev/null", AS_OPEN_NO_LINKS), -1);
	cr_expect_eq(as_open_file(AT_FDCWD, "/dev/zero", AS_OPEN_FOLLOW), -1);
}

Test(open_file, the_same_without_openat2)
{
	/* This test's process alone: Criterion runs each test in a process of its own. */
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	cr_assert(f && seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) == 0 && seccomp_load(f) == 0);
	seccomp_release(f);
	cr_expect_str_eq(opened(AT_FDCWD, "real/lib.so", AS_OPEN_NO_LINKS), "lib");
	cr_expect_str_eq(opened(AT_FDCWD, "link/lib.so", AS_OPEN_NO_LINKS), "", "a directory that is a link");
	cr_expect_str_eq(opened(AT_FDCWD, "real/last", AS_OPEN_NO_LINKS), "", "a last component that is a link");
	cr_expect_str_eq(opened(AT_FDCWD, "real/fifo", AS_OPEN_NO_LINKS), "");
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/real", root);
	int dir = open(p, O_PATH | O_DIRECTORY);
	cr_expect_str_eq(opened(dir, "/lib.so", AS_OPEN_NO_LINKS | AS_OPEN_BENEATH), "lib");
	cr_expect_str_eq(opened(dir, "../secret", AS_OPEN_BENEATH), "", "the walk refuses .. beneath");
	close(dir);
}

static const char *
served_bytes(void *ctx, const char *path, size_t *len)
{
	(void)ctx;
	if (strcmp(path, "/proc/42/comm") != 0)
		return NULL;
	*len = 5;
	return "name\n";
}

static int
served_open(void *ctx, const char *path)
{
	(void)path;
	return dup(*(int *)ctx);
}

Test(open_file, a_file_server_answers_alone)
{
	int null = open("/dev/null", O_RDONLY);
	as_file_server s = { served_bytes, served_open, &null };
	as_files_serve(&s);
	char buf[16];
	cr_expect_eq(as_read_small_file("/proc/42/comm", buf, sizeof buf), 4);
	cr_expect_str_eq(buf, "name");
	cr_expect_eq(as_read_small_file("/proc/self/comm", buf, sizeof buf), -1, "nothing else is read");
	cr_expect_eq(as_open_ro("/proc/self/comm"), -1);
	int fd = as_open_file(AT_FDCWD, "/any/path", AS_OPEN_NO_LINKS);
	struct stat a, b;
	cr_expect(fd >= 0 && fstat(fd, &a) == 0 && fstat(null, &b) == 0 && a.st_ino == b.st_ino, "the server's file");
	as_files_serve(NULL);
	close(fd);
	close(null);
}
