/*
 * test_fs_hostile.c — files, directories and the CLI under attack (issue 12,
 * docs/fault-matrix.md "Files, directories and the CLI"): each test runs the
 * real CLI or crashes a real program in a hostile file system and checks
 * that nothing blocks, nothing is lost and nothing of ours is destroyed.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "http_server.h"
#include "store_util.h"
#include "util.h"

TestSuite(fs_hostile, .timeout = 120);

/* Run a shell command line with the CLI's path as its first printf argument;
 * returns its exit status, stdout+stderr in *out. */
static int
sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
sh(char **out, const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&cmd, fmt, ap) > 0);
	va_end(ap);
	int st = pm_test_run(cmd, out);
	free(cmd);
	cr_assert(WIFEXITED(st), "the shell did not exit");
	return WEXITSTATUS(st);
}

static const char *
cli_path(void)
{
	return pm_test_build("tools/postmortem");
}

static const char *
sample_twin(void)
{
	return pm_test_source("sample_crashes/reports/sigsegv_null_deref.json");
}

/* Files in dir other than the ones named (a temporary left behind shows up here). */
static int
count_entries(const char *dir)
{
	char *out;
	sh(&out, "ls -A '%s' | wc -l", dir);
	int n = atoi(out);
	free(out);
	return n;
}

/* Item 12: a FIFO named as the report must not block any command. */
Test(fs_hostile, a_fifo_as_input_is_refused_at_once)
{
	char *dir = pm_test_tmpdir(), *out;
	const char *fifo = su_path(dir, ".", "report.crash");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	static const char *const commands[] = { "explain", "convert", "symbolicate" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		/* timeout(1) turns a hang into 124 instead of hanging the test. */
		int rc = sh(&out, "timeout 20 '%s' %s '%s'", cli_path(), commands[i], fifo);
		cr_expect_eq(rc, 1, "%s on a FIFO: exit %d\n%s", commands[i], rc, out);
		cr_expect(strstr(out, "not a regular file (a FIFO)"), "%s: %s", commands[i], out);
		free(out);
	}
	su_rm(dir);
	free(dir);
}

/* Item 4: a write that fails leaves OUT as it was: an existing file keeps its
 * bytes, a device stays a device, and no temporary is left beside it. */
Test(fs_hostile, a_failed_write_never_destroys_the_output)
{
	char *dir = pm_test_tmpdir(), *out;
	char *file = strdup(su_path(dir, ".", "out.crash"));
	su_write(file, "precious\n", 9);
	/* RLIMIT_FSIZE cuts the write short (SIGXFSZ ignored: EFBIG), like a full disk. */
	int rc = sh(&out, "trap '' XFSZ; prlimit --fsize=1000 '%s' convert '%s' -o '%s'", cli_path(),
	            sample_twin(), file);
	cr_expect_eq(rc, 3, "%s", out);
	cr_expect(strstr(out, "cannot write"), "%s", out);
	free(out);
	char *kept = pm_test_slurp(file, NULL);
	cr_expect_str_eq(kept, "precious\n", "OUT lost its content");
	free(kept);
	cr_expect_eq(count_entries(dir), 1, "a temporary was left beside OUT");

	rc = sh(&out, "trap '' XFSZ; prlimit --fsize=1000 '%s' symbolicate '%s' -o '%s'", cli_path(),
	        sample_twin(), file);
	cr_expect_eq(rc, 3, "%s", out);
	free(out);
	kept = pm_test_slurp(file, NULL);
	cr_expect_str_eq(kept, "precious\n");
	free(kept);

	/* A character device that fails every write (/dev/full's numbers). */
	char *dev = strdup(su_path(dir, ".", "full"));
	cr_assert_eq(mknod(dev, S_IFCHR | 0600, makedev(1, 7)), 0, "mknod needs root");
	rc = sh(&out, "'%s' convert '%s' -o '%s'", cli_path(), sample_twin(), dev);
	cr_expect_eq(rc, 3, "%s", out);
	cr_expect(strstr(out, "No space left"), "%s", out);
	free(out);
	struct stat st;
	cr_expect(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode), "the device was removed");

	/* And a write that works replaces the file whole, keeping its mode. */
	chmod(file, 0640);
	rc = sh(&out, "'%s' convert '%s' -o '%s'", cli_path(), sample_twin(), file);
	cr_expect_eq(rc, 0, "%s", out);
	free(out);
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_expect_eq(pm_read_report_file(file, &r, &err), PM_OK, "%s", err.message);
	pm_report_free(&r);
	cr_expect_eq(su_mode(file), 0640u);
	cr_expect_eq(count_entries(dir), 2);
	free(dev);
	free(file);
	su_rm(dir);
	free(dir);
}
