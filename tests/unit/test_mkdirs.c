/*
 * test_mkdirs.c — pmi_mkdirs (base/reports_dir.c): a directory found made
 * costs one stat, and only a missing one takes the per-component walk, so
 * both paths are checked here, with what each refuses.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports_dir.h"
#include "util.h"

static char *root;

static void
make_root(void)
{
	root = pm_test_tmpdir();
}

static void
remove_root(void)
{
	pm_test_rmdir(root);
}

TestSuite(mkdirs, .init = make_root, .fini = remove_root);

static mode_t
mode_of(const char *path)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return st.st_mode;
}

Test(mkdirs, makes_each_missing_component_private)
{
	char path[128], mid[128];
	snprintf(mid, sizeof mid, "%s/a/b", root);
	snprintf(path, sizeof path, "%s/a/b/c", root);
	umask(022);
	cr_assert_eq(pmi_mkdirs(path), 0, "%s", strerror(errno));
	cr_expect(S_ISDIR(mode_of(path)));
	cr_expect_eq(mode_of(mid) & 0777, 0700);
	cr_expect_eq(mode_of(path) & 0777, 0700);
}

Test(mkdirs, finds_a_made_directory)
{
	cr_assert_eq(pmi_mkdirs(root), 0, "%s", strerror(errno));
	char slash[128];
	snprintf(slash, sizeof slash, "%s/d/", root); /* a trailing slash too */
	cr_assert_eq(pmi_mkdirs(slash), 0, "%s", strerror(errno));
	cr_expect(S_ISDIR(mode_of(slash)));
}

Test(mkdirs, refuses_a_file_in_its_place)
{
	char file[128], below[128];
	snprintf(file, sizeof file, "%s/f", root);
	int fd = open(file, O_CREAT | O_WRONLY, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	errno = 0;
	cr_expect_eq(pmi_mkdirs(file), -1);
	cr_expect_eq(errno, ENOTDIR);
	snprintf(below, sizeof below, "%s/f/g", root);
	errno = 0;
	cr_expect_eq(pmi_mkdirs(below), -1);
	cr_expect_eq(errno, ENOTDIR);
}

Test(mkdirs, refuses_an_empty_or_too_long_path)
{
	errno = 0;
	cr_expect_eq(pmi_mkdirs(""), -1);
	cr_expect_eq(errno, ENAMETOOLONG);
	static char longest[PATH_MAX + 1];
	memset(longest, 'x', PATH_MAX);
	longest[0] = '/';
	errno = 0;
	cr_expect_eq(pmi_mkdirs(longest), -1);
	cr_expect_eq(errno, ENAMETOOLONG);
}
