/*
 * test_landing.c — the frozen thread lent to the report's landing
 * (reporter/landing/as_sync_lent.c): with it, the .json's fsync is the lent
 * thread's while the reporting thread fsyncs the .crash; with it faulting
 * or too late, or with no other thread, the reporting thread fsyncs it.
 * In every case each file is renamed only after an fsync of it returned 0,
 * and the report is whole.  An LD_PRELOAD shim (programs/sync_shim.c) logs
 * every fsync and rename, and which thread made it.
 *
 * The order checked is the one of a filesystem that may commit a rename
 * before the file's blocks (ext4 without a journal: the test machines'
 * /tmp); elsewhere the files are not fsync'd before their names, and the
 * tests are skipped.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

enum { EXT4_MAGIC = 0xEF53 };

typedef struct land_run {
	crash_run run;
	char *log, *env[3];
	char *text; /* the shim's log */
} land_run;

/* ext4 without a journal where the tests write (as reporter/landing/as_fs_order.c tells it). */
static bool
files_synced_before_names(void)
{
	char *dir = pm_test_tmpdir();
	struct statfs fs;
	struct stat st;
	bool ext4 = statfs(dir, &fs) == 0 && fs.f_type == EXT4_MAGIC && stat(dir, &st) == 0;
	rmdir(dir);
	free(dir);
	if (!ext4)
		return false;
	char path[64], link[256], journal[300];
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	ssize_t n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	snprintf(journal, sizeof journal, "/proc/fs/jbd2/%s-8", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	return access(journal, F_OK) != 0;
}

/* Run program under the shim (and walk_shim.c too, when walks: it logs
 * "other" once the lent thread reads a stack, in the same log). */
static void
land_noreport(land_run *l, const char *program, const char *const *args, const char *mode, bool walks)
{
	*l = (land_run){ 0 };
	char *dir = pm_test_tmpdir();
	cr_assert(asprintf(&l->log, "%s/log", dir) > 0);
	free(dir);
	cr_assert(asprintf(&l->env[0], "LD_PRELOAD=%s%s%s", pm_test_build("tests/libpm_sync_shim.so"), walks ? ":" : "",
	                   walks ? pm_test_build("tests/libpm_walk_shim.so") : "") > 0);
	cr_assert(asprintf(&l->env[1], "PM_SHIM_LOG=%s", l->log) > 0);
	cr_assert(asprintf(&l->env[2], "PM_SHIM_MODE=%s", mode) > 0);
	const char *env[] = { l->env[0], l->env[1], l->env[2], NULL };
	crash_run_program_noreport(&l->run, program, args, env);
	cr_assert(WIFSIGNALED(l->run.status) && WTERMSIG(l->run.status) == SIGSEGV,
	          "the process dies of its own fault (status %#x)", l->run.status);
	l->text = access(l->log, R_OK) == 0 ? pm_test_slurp(l->log, NULL) : strdup("");
}

static void
land(land_run *l, const char *program, const char *const *args, const char *mode, bool walks)
{
	land_noreport(l, program, args, mode, walks);
	cr_assert(l->run.crash_path && l->run.json_path, "%s left no report in %s", program, l->run.dir);
}

static void
land_free(land_run *l)
{
	crash_run_free(&l->run);
	char *slash = strrchr(l->log, '/');
	unlink(l->log);
	*slash = '\0';
	rmdir(l->log);
	free(l->log);
	free(l->text);
	for (int i = 0; i < 3; i++)
		free(l->env[i]);
}

/* ".<id><ext>.tmp", the name the file has until its rename. */
static char *
tmp_name(const char *path, const char *ext)
{
	const char *base = strrchr(path, '/') + 1;
	char *name;
	cr_assert(asprintf(&name, ".%.*s%s.tmp", (int)(strlen(base) - strlen(ext)), base, ext) > 0);
	return name;
}

/* The log's line `line` (without its newline) is present before offset `before`. */
static bool
logged_before(const char *log, const char *line, size_t before)
{
	size_t n = strlen(line);
	for (const char *p = log; (p = strstr(p, line)) != NULL && (size_t)(p - log) < before; p += n)
		if ((p == log || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Where `rename NAME` is logged (the log's length if nowhere). */
static size_t
rename_at(const char *log, const char *name)
{
	char *line;
	cr_assert(asprintf(&line, "rename %s\n", name) > 0);
	const char *p = strstr(log, line);
	free(line);
	return p ? (size_t)(p - log) : strlen(log);
}

/* Which thread's fsync of the file (ext) returned 0 before its rename:
 * "main", "other", or NULL for none.  (Asserts it was renamed.) */
static const char *
synced_by(const land_run *l, const char *path, const char *ext)
{
	char *name = tmp_name(path, ext), *main_line, *other_line;
	size_t at = rename_at(l->text, name);
	cr_assert_lt(at, strlen(l->text), "%s was renamed:\n%s", name, l->text);
	cr_assert(asprintf(&main_line, "end main %s 0", name) > 0);
	cr_assert(asprintf(&other_line, "end other %s 0", name) > 0);
	const char *who = logged_before(l->text, other_line, at) ? "other"
	                  : logged_before(l->text, main_line, at) ? "main"
	                                                          : NULL;
	free(main_line);
	free(other_line);
	free(name);
	return who;
}

/* Did the lent thread begin an fsync? */
static bool
lent_began(const land_run *l)
{
	return strstr(l->text, "begin other ") != NULL;
}

static void
assert_whole(const land_run *l, uint32_t threads)
{
	cr_assert_eq(l->run.reports, 1);
	cr_assert_eq(l->run.json.thread_count, threads + crash_emulator_threads());
	cr_assert_eq(l->run.text.thread_count, threads + crash_emulator_threads());
	cr_assert(l->run.json.complete, "the .json is whole");
}

/* Lending is a chance, not a promise (test_walkers.c): on a loaded machine
 * the thread may not run before the reporting thread takes its job back,
 * or its fsync may outlast the reporting thread's patience.  A test of what
 * the lent thread does runs the crash again, a few times at most, until
 * what it looks at happened; every run's report must be whole and each
 * file fsync'd before its rename. */
enum { LEND_TRIES = 6 };

/* Did the lent thread walk stacks (walk_shim.c's line)? */
static bool
lent_walked(const land_run *l)
{
	return strncmp(l->text, "other\n", 6) == 0 || strstr(l->text, "\nother\n") != NULL;
}

/* The lent thread's fsync of the .json returned 0 before its rename. */
static bool
lent_synced(const land_run *l)
{
	const char *who = synced_by(l, l->run.json_path, ".json");
	return who && strcmp(who, "other") == 0;
}

/* many_walks with `threads` threads in all, until seen(run) (or under
 * qemu-user, where the thread is not lent: once). */
static void
land_lent_at(land_run *l, const char *mode, uint32_t threads, bool walks, bool (*seen)(const land_run *))
{
	char others[16];
	snprintf(others, sizeof others, "%u", threads - 1);
	const char *args[] = { others, NULL };
	for (int i = 0; i < LEND_TRIES; i++) {
		land(l, pm_test_build("tests/crash_many_walks"), args, mode, walks);
		assert_whole(l, threads);
		cr_assert_not_null(synced_by(l, l->run.crash_path, ".crash"), "the .crash fsync'd before its rename:\n%s",
		                   l->text);
		cr_assert_not_null(synced_by(l, l->run.json_path, ".json"), "the .json fsync'd before its rename:\n%s",
		                   l->text);
		if (seen(l) || crash_emulator_threads() || i + 1 == LEND_TRIES)
			return;
		land_free(l);
	}
}

Test(landing, at_17_threads_a_frozen_thread_fsyncs_the_json, .timeout = 240)
{
	if (!files_synced_before_names())
		cr_skip_test("the tests' directory's filesystem does not fsync files before their names");
	land_run l;
	land_lent_at(&l, "", 17, false, lent_synced);
	cr_assert_str_eq(synced_by(&l, l.run.crash_path, ".crash"), "main", "%s", l.text);
	cr_assert(lent_synced(&l) || crash_emulator_threads(), "the lent thread fsync'd the .json:\n%s", l.text);
	land_free(&l);
}

static bool
lent_walked_and_synced(const land_run *l)
{
	return lent_walked(l) && lent_synced(l);
}

/* From 96 threads the thread walks first (as_walk_lent.c), then lands. */
Test(landing, at_150_threads_the_thread_lent_to_the_walks_then_fsyncs_the_json, .timeout = 240)
{
	if (!files_synced_before_names())
		cr_skip_test("the tests' directory's filesystem does not fsync files before their names");
	land_run l;
	land_lent_at(&l, "", 150, true, lent_walked_and_synced);
	cr_assert(lent_walked(&l) || crash_emulator_threads(), "the lent thread walked:\n%s", l.text);
	cr_assert(lent_synced(&l) || crash_emulator_threads(), "the lent thread fsync'd the .json:\n%s", l.text);
	land_free(&l);
}

/* The lent thread began and faulted, or slept: the reporting thread
 * fsync'd the .json itself, and only then renamed it. */
static void
expect_taken_back(const char *mode)
{
	if (!files_synced_before_names())
		cr_skip_test("the tests' directory's filesystem does not fsync files before their names");
	land_run l;
	land_lent_at(&l, mode, 17, false, lent_began);
	cr_assert(lent_began(&l) || crash_emulator_threads(), "the lent thread began:\n%s", l.text);
	cr_assert_str_eq(synced_by(&l, l.run.json_path, ".json"), "main", "%s", l.text);
	land_free(&l);
}

Test(landing, a_fault_in_the_lent_fsync_loses_nothing, .timeout = 240)
{
	expect_taken_back("fault");
}

Test(landing, a_late_lent_fsync_is_not_waited_for, .timeout = 240)
{
	expect_taken_back("late");
}

/* The lent fsync failed: the .json gets no name (a second fsync would not
 * see the error again); the .crash is landed whole. */
Test(landing, a_failed_lent_fsync_names_no_file, .timeout = 240)
{
	if (!files_synced_before_names())
		cr_skip_test("the tests' directory's filesystem does not fsync files before their names");
	const char *args[] = { "16", NULL };
	land_run l;
	for (int i = 0; i < LEND_TRIES; i++) {
		land_noreport(&l, pm_test_build("tests/crash_many_walks"), args, "fail", false);
		cr_assert_not_null(l.run.crash_path, "the .crash landed:\n%s", l.text);
		cr_assert_str_eq(synced_by(&l, l.run.crash_path, ".crash"), "main", "%s", l.text);
		if (lent_began(&l) || crash_emulator_threads() || i + 1 == LEND_TRIES)
			break;
		land_free(&l);
	}
	if (!crash_emulator_threads()) {
		cr_assert(lent_began(&l), "the lent thread began:\n%s", l.text);
		cr_assert_null(l.run.json_path, "no .json after its failed fsync:\n%s", l.text);
		const char *base = strrchr(l.run.crash_path, '/') + 1;
		char *renamed;
		cr_assert(asprintf(&renamed, "rename .%.*s.json.tmp\n", (int)(strlen(base) - strlen(".crash")), base) > 0);
		cr_assert_null(strstr(l.text, renamed), "%s", l.text);
		free(renamed);
		cr_assert_eq(l.run.text.thread_count, 17u);
	}
	land_free(&l);
}

Test(landing, with_no_other_thread_the_reporting_thread_fsyncs_both, .timeout = 120)
{
	if (!files_synced_before_names())
		cr_skip_test("the tests' directory's filesystem does not fsync files before their names");
	land_run l;
	land(&l, crash_sample_path("null_deref"), NULL, "", false);
	assert_whole(&l, 1);
	cr_assert(!lent_began(&l), "%s", l.text);
	cr_assert_str_eq(synced_by(&l, l.run.crash_path, ".crash"), "main", "%s", l.text);
	cr_assert_str_eq(synced_by(&l, l.run.json_path, ".json"), "main", "%s", l.text);
	land_free(&l);
}
