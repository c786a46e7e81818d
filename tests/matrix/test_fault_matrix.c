/*
 * test_fault_matrix.c — the fault matrix (issue 12): one table of hostile
 * scenarios, each run as a real child process, each checked for how the
 * child died, the reports it left (or the documented partial) and that
 * nothing was lost: every .crash has its complete .json twin, no temporary
 * file is left behind.  docs/fault-matrix.md is this table for users.
 *
 * Killed by SIGKILL at every write of the handler is a loop of its own:
 * tests/delivery/test_torn_kill.c (the store's side of it).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

typedef struct scenario {
	const char *name;          /* as in docs/fault-matrix.md */
	const char *program;       /* under the build root, or an absolute path */
	const char *args[4];       /* "@path": path under the build root */
	int signal;                /* the child dies of it; 0: exits with `status` */
	int status;
	int reports;               /* whole reports left in pending/ */
	const char *function;      /* on the crashed thread's stack (NULL: not checked) */
	void (*check)(const crash_run *run);
	bool needs_root;           /* a private mount namespace (skipped where none can be made) */
} scenario;

/* ---- what some rows check beyond the common part ------------------------ */

static const pm_thread *
crashed_thread(const pm_report *r)
{
	int32_t t = pm_report_crashed_thread(r);
	cr_assert(t >= 0, "the report has no crashed thread");
	return &r->threads[t];
}

static uint32_t
threads_noted(const pm_report *r, const char *words)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->thread_count; i++)
		n += r->threads[i].note && strstr(r->threads[i].note, words) != NULL;
	return n;
}

static uint32_t
threads_captured(const pm_report *r)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->thread_count; i++)
		n += r->threads[i].captured;
	return n;
}

/* Every report in pending/, read back, in the order of their exception signals. */
static int
signals_reported(const crash_run *run, int *sigs, int cap)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "ls '%s/pending'/*.json", run->dir) > 0);
	pm_test_run(cmd, &out);
	int n = 0;
	for (char *line = strtok(out, "\n"); line && n < cap; line = strtok(NULL, "\n")) {
		pm_report r;
		pm_read_error err = { 0 };
		pm_report_init(&r);
		cr_assert_eq(pm_read_report_file(line, &r, &err), PM_OK, "%s: %s", line, err.message);
		cr_expect(r.complete, "%s is not complete", line);
		sigs[n++] = r.exception.signal;
		pm_report_free(&r);
	}
	free(out);
	free(cmd);
	return n;
}

static void
check_reported(const crash_run *run, int want_segv, int want_abrt)
{
	int sigs[8], segv = 0, abrt = 0;
	int n = signals_reported(run, sigs, 8);
	for (int i = 0; i < n; i++) {
		segv += sigs[i] == SIGSEGV;
		abrt += sigs[i] == SIGABRT;
	}
	cr_expect(segv == want_segv && abrt == want_abrt, "%d reports: %d SIGSEGV (%d expected), %d SIGABRT (%d)", n,
	          segv, want_segv, abrt, want_abrt);
}

/* The faults the app's handler resolved are no crash: only the abort() after them is. */
static void
check_resolved_not_reported(const crash_run *run)
{
	check_reported(run, 0, 1);
}

static void
check_fault_reported_not_abort(const crash_run *run)
{
	check_reported(run, 1, 0);
}

static void
check_whole_stack(const crash_run *run)
{
	const pm_thread *t = crashed_thread(&run->json);
	cr_expect(crash_frame_index(&run->json, t, "seccomp_caller") >= 0 &&
	          crash_frame_index(&run->json, t, "__libc_start_main") >= 0,
	          "the walk stopped early: %u frames (%s)", t->frame_count, t->note ? t->note : "no note");
}

static void
check_threads_and_images(const crash_run *run)
{
	cr_expect(crash_find_image(&run->json, "/libc.so.6") != NULL, "no images: /proc/self/maps was not read");
	cr_expect(crashed_thread(&run->json)->name != NULL, "no thread name: /proc was not read");
}

static void
check_cap_keeps_crasher(const crash_run *run, uint32_t cap)
{
	cr_expect_eq(run->json.thread_count, cap);
	cr_expect(run->json.threads_truncated, "the report does not say threads were left out");
	crashed_thread(&run->text);
}

static void
check_cap_16(const crash_run *run)
{
	check_cap_keeps_crasher(run, 16);
}

static void
check_both_crashers(const crash_run *run)
{
	check_cap_keeps_crasher(run, 8);
	const pm_thread *also = NULL;
	for (uint32_t i = 0; i < run->json.thread_count; i++)
		if (run->json.threads[i].note && strstr(run->json.threads[i].note, "crashed too"))
			also = &run->json.threads[i];
	cr_assert(also != NULL, "the thread that crashed too was dropped");
	cr_expect(also->captured && crash_frame_index(&run->json, also, "crash_in_last_thread") >= 0,
	          "the thread that crashed too has no stack");
}

static void
check_cap_default(const crash_run *run)
{
	check_cap_keeps_crasher(run, 1024);
	cr_expect_eq(threads_noted(&run->json, "blocks the signal"), 0);
}

static void
check_all_stopped(const crash_run *run)
{
	cr_expect_eq(run->json.thread_count, 1001);
	cr_expect_eq(threads_noted(&run->json, "blocks the signal"), 0,
	             "threads that were stopping were taken for threads that block the signal");
	cr_expect_eq(threads_captured(&run->json), 1001, "only %u of 1001 threads captured",
	             threads_captured(&run->json));
}

static void
check_minimal(const crash_run *run)
{
	cr_expect_eq(run->json.thread_count, 0, "expected the minimal report (header and exception only)");
	cr_expect_eq(run->json.exception.signal, SIGSYS);
}

static void
check_no_proc(const crash_run *run)
{
	const pm_thread *t = crashed_thread(&run->json);
	cr_expect_eq(run->json.thread_count, 1);
	cr_expect(t->captured && t->regs != NULL, "the crashed thread's registers are missing");
	cr_expect(t->note && strstr(t->note, "memory map could not be read") != NULL, "note: %s",
	          t->note ? t->note : "(none)");
}

static void
check_moved_pending(const crash_run *run)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "ls '%s/pending.moved'", run->dir) > 0);
	pm_test_run(cmd, &out);
	cr_expect(strstr(out, ".crash") && strstr(out, ".json"),
	          "the report is not in the directory opened at install:\n%s", out);
	free(out);
	free(cmd);
}

/* ---- the matrix ---------------------------------------------------------- */

#define SAMPLE(name) "sample_crashes/crash_" name
#define PROGRAM(name) "tests/matrix_" name
#define NS_WRAP PROGRAM("ns_wrap")

/* `postmortem run --dir <relative>` from the reports directory's parent, on
 * a shell that changes directory after postmortem is installed, then dies. */
#define RUN_RELATIVE \
	"cd \"$POSTMORTEM_DIR/..\" && exec \"$0\" run --dir \"${POSTMORTEM_DIR##*/}\" -- " \
	"/bin/sh -c 'cd / && kill -SEGV $$'"

/* X(test, row, program, signal, status, reports, function, check, needs_root, args...) */
#define MATRIX(X) \
	/* every fatal signal postmortem handles */ \
	X(sigsegv, "SIGSEGV", SAMPLE("null_deref"), SIGSEGV, 0, 1, "crash_null_deref", NULL, false, NULL) \
	X(sigbus, "SIGBUS", SAMPLE("sigbus_mmap"), SIGBUS, 0, 1, "crash_sigbus", NULL, false, NULL) \
	X(sigill, "SIGILL", SAMPLE("ud2"), SIGILL, 0, 1, "crash_ud2", NULL, false, NULL) \
	X(sigfpe, "SIGFPE", SAMPLE("divide_by_zero"), SIGFPE, 0, 1, "crash_divide", NULL, false, NULL) \
	X(sigabrt, "SIGABRT", SAMPLE("abort"), SIGABRT, 0, 1, "crash_abort", NULL, false, NULL) \
	X(sigtrap, "SIGTRAP", SAMPLE("int3"), SIGTRAP, 0, 1, "crash_breakpoint", NULL, false, NULL) \
	X(sigsys, "SIGSYS", PROGRAM("seccomp"), SIGSYS, 0, 1, "crash_by_sigsys", NULL, false, "trap") \
	/* stacks and threads */ \
	X(overflow_main, "stack overflow, main thread", SAMPLE("stack_overflow"), SIGSEGV, 0, 1, \
	  "crash_recurse", NULL, false, NULL) \
	X(overflow_worker, "stack overflow, worker thread", SAMPLE("stack_overflow_thread"), SIGSEGV, 0, \
	  1, "crash_recurse_worker", NULL, false, NULL) \
	X(overflow_raw_clone, "stack overflow, raw clone() thread", PROGRAM("clone_overflow"), SIGSEGV, 0, \
	  0, NULL, NULL, false, NULL) \
	X(malloc_lock, "crash while malloc's lock is held", SAMPLE("malloc_lock"), SIGSEGV, 0, 1, \
	  "crash_while_malloc_locked", NULL, false, NULL) \
	X(two_crashers, "two threads crash at once", SAMPLE("two_threads_crash"), SIGSEGV, 0, 1, \
	  "crash_in_thread", NULL, false, NULL) \
	X(crasher_beyond_cap, "crasher beyond max_threads", PROGRAM("thread_flood"), SIGSEGV, 0, 1, \
	  "crash_in_last_thread", check_cap_16, false, "40", "16") \
	X(two_crashers_beyond_cap, "two crashers beyond max_threads", PROGRAM("thread_flood"), SIGSEGV, 0, 1, \
	  "crash_in_last_thread", check_both_crashers, false, "40", "8", "2", "@tests/libpm_hold_listing.so") \
	X(threads_1100_crasher_last, "1100 threads, crasher last", PROGRAM("thread_flood"), SIGSEGV, 0, 1, \
	  "crash_in_last_thread", check_cap_default, false, "1100", "0") \
	X(threads_1000_all_stop, "1000 threads all stop", PROGRAM("thread_flood"), SIGSEGV, 0, 1, \
	  "crash_in_last_thread", check_all_stopped, false, "1000", "0") \
	X(bad_tls, "corrupted thread pointer (TLS)", PROGRAM("bad_tls"), SIGSEGV, 0, 1, \
	  "crash_with_bad_tls", NULL, false, NULL) \
	/* other signal handlers, processes, sandboxes */ \
	X(app_handler_before, "app handler set before pm_install", "tests/crash_chain_previous", 0, 42, 1, \
	  NULL, NULL, false, NULL) \
	X(app_handler_after, "app handler set after pm_install", PROGRAM("app_handler"), SIGSEGV, 0, 1, \
	  "crash_after_app_handler", NULL, false, "after") \
	X(app_handler_recovers, "app handler recovers from two faults, then the app aborts", \
	  PROGRAM("app_handler"), SIGABRT, 0, 1, NULL, check_resolved_not_reported, false, "recovers") \
	X(app_handler_returns, "app handler returns, the same fault comes back, then it fixes it", \
	  PROGRAM("app_handler"), SIGABRT, 0, 1, NULL, check_resolved_not_reported, false, "returns") \
	X(app_handler_aborts, "app handler calls abort()", PROGRAM("app_handler"), SIGABRT, 0, 1, NULL, \
	  check_fault_reported_not_abort, false, "aborts") \
	X(fork_child, "forked child crashes", PROGRAM("fork_child"), SIGSEGV, 0, 1, "crash_in_child", \
	  NULL, false, NULL) \
	X(seccomp_before, "seccomp filter before pm_install", PROGRAM("seccomp"), SIGSEGV, 0, 1, \
	  "crash_under_seccomp", check_whole_stack, false, "before") \
	X(seccomp_traps_the_handler, "seccomp filter traps a call the handler makes", PROGRAM("seccomp"), SIGSYS, 0, \
	  1, NULL, check_minimal, false, "trap_handler") \
	X(seccomp_after, "seccomp filter after pm_install", PROGRAM("seccomp"), SIGSEGV, 0, 1, \
	  "crash_under_seccomp", check_whole_stack, false, "after") \
	X(no_proc, "no /proc", NS_WRAP, SIGSEGV, 0, 1, NULL, check_no_proc, true, "noproc", \
	  "@" SAMPLE("null_deref")) \
	/* descriptors, directories, disks */ \
	X(emfile, "every descriptor in use (EMFILE)", PROGRAM("emfile"), SIGSEGV, 0, 1, \
	  "crash_without_descriptors", check_threads_and_images, false, NULL) \
	X(relative_dir, "relative reports directory, chdir after install", PROGRAM("relative_dir"), \
	  SIGSEGV, 0, 1, "crash_after_chdir", NULL, false, NULL) \
	X(run_relative_dir, "postmortem run --dir with a relative directory, chdir after start", "/bin/sh", 0, \
	  128 + SIGSEGV, 1, NULL, NULL, false, "-c", RUN_RELATIVE, "@tools/postmortem") \
	X(long_dir, "reports directory too long", PROGRAM("long_dir"), 0, 2, 0, NULL, NULL, false, NULL) \
	X(pending_replaced, "pending/ replaced by a file after install", "tests/crash_hostile_disk", \
	  SIGSEGV, 0, 0, NULL, check_moved_pending, false, "notdir") \
	X(readonly_dir, "read-only reports directory", NS_WRAP, 0, 2, 0, NULL, NULL, true, "readonly", \
	  "@" SAMPLE("null_deref")) \
	X(disk_full, "disk full (tmpfs)", NS_WRAP, SIGSEGV, 0, 0, NULL, NULL, true, "full", \
	  "@" SAMPLE("null_deref")) \
	X(fsize_limit, "file size limit (RLIMIT_FSIZE)", "tests/crash_hostile_disk", SIGSEGV, 0, 0, NULL, \
	  NULL, false, "fsize") \
	/* end of the matrix */

#define AS_ROW(id, row, prog, sig, st, n, fn, chk, root, ...) \
	{ row, prog, { __VA_ARGS__ }, sig, st, n, fn, chk, root },
#define AS_INDEX(id, ...) ROW_##id,
static const scenario matrix[] = { MATRIX(AS_ROW) };
enum { MATRIX(AS_INDEX) ROWS };

/* ---- running one row ----------------------------------------------------- */

static bool
is_file_of_kind(const char *name, const char *ext)
{
	size_t n = strlen(name), k = strlen(ext);
	return name[0] != '.' && n > k && strcmp(name + n - k, ext) == 0;
}

/* .crash, .json and .dmp files in pending/, and anything else (temporary files). */
static void
count_files(const char *dir, int *crash, int *json, int *dmp, int *other)
{
	char pending[4096];
	snprintf(pending, sizeof pending, "%s/pending", dir);
	*crash = *json = *dmp = *other = 0;
	DIR *d = opendir(pending);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (is_file_of_kind(e->d_name, ".crash"))
			(*crash)++;
		else if (is_file_of_kind(e->d_name, ".json"))
			(*json)++;
		else if (is_file_of_kind(e->d_name, ".dmp"))
			(*dmp)++;
		else
			(*other)++;
	}
	closedir(d);
}

static void
check_died(const scenario *s, int status)
{
	if (s->signal)
		cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == s->signal,
		          "%s: must die of signal %d, status 0x%x", s->name, s->signal, status);
	else
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == s->status,
		          "%s: must exit with %d, status 0x%x", s->name, s->status, status);
}

static void
check_nothing_lost(const scenario *s, const crash_run *run)
{
	int crash, json, dmp, other;
	count_files(run->dir, &crash, &json, &dmp, &other);
	cr_expect_eq(crash, s->reports, "%s: %d .crash files, %d expected", s->name, crash, s->reports);
	cr_expect_eq(json, crash, "%s: %d .crash but %d .json", s->name, crash, json);
	/* The minidump comes after both report files and never instead of them. */
	cr_expect(dmp <= crash, "%s: %d .dmp for %d reports", s->name, dmp, crash);
	cr_expect_eq(other, 0, "%s: %d other files (temporary files left behind?)", s->name, other);
	if (s->reports == 0)
		return;
	cr_expect(run->json.complete, "%s: the JSON twin is not complete", s->name);
	cr_expect(run->text.complete, "%s: the .crash has no end", s->name);
	if (s->reports == 1)
		cr_expect_eq(run->json.exception.signal, run->text.exception.signal, "%s: the twins disagree", s->name);
	if (s->function) {
		const pm_thread *t = crashed_thread(&run->json);
		cr_expect(crash_frame_index(&run->json, t, s->function) >= 0, "%s: %s is not on the crashed stack",
		          s->name, s->function);
		cr_expect_eq(run->json.exception.signal, s->signal);
	}
}

/* Can this process make a private mount namespace?  (Not as a user, nor in
 * a container that forbids unshare.) */
static bool
can_unshare_mounts(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWNS) == 0 ? 0 : 1);
	int status;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void
run_row(const scenario *s)
{
	if (s->needs_root && !can_unshare_mounts())
		cr_skip_test("%s: needs a private mount namespace (root, unshare allowed)", s->name);
	const char *args[5] = { 0 };
	for (int i = 0; i < 4 && s->args[i]; i++)
		args[i] = s->args[i][0] == '@' ? strdup(pm_test_build("%s", s->args[i] + 1)) : s->args[i];
	crash_run run;
	const char *program = s->program[0] == '/' ? s->program : pm_test_build("%s", s->program);
	crash_run_program_noreport(&run, program, args, NULL);
	cr_log_info("%s: status 0x%x, %d reports in %s", s->name, run.status, run.reports, run.dir);
	check_died(s, run.status);
	check_nothing_lost(s, &run);
	if (s->check)
		s->check(&run);
	crash_run_free(&run);
}

#define AS_TEST(id, ...) \
	Test(fault_matrix, id, .timeout = 180) { run_row(&matrix[ROW_##id]); }
MATRIX(AS_TEST)
