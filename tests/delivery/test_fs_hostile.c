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
