/*
 * test_capture.c — what issue 3 asks of the crash path beyond the samples:
 * coexistence with a previous handler, install → uninstall → install,
 * threads that existed before install, libraries loaded after it, faults
 * inside the handler, a directory that cannot be written, a file size
 * limit, and core dumps.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

static const char *
program(const char *name)
{
	return pm_test_build("tests/crash_%s", name);
}

static bool
died_of(int status, int sig)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/* A file the child writes at crash time: MARKER=path in its environment. */
typedef struct marker {
	char *dir, *path, *env;
} marker;

/* Run the program called name with a new marker. */
static void
run_with_marker(crash_run *run, marker *m, const char *name)
{
	m->dir = pm_test_tmpdir();
	cr_assert(asprintf(&m->path, "%s/marker", m->dir) > 0);
	cr_assert(asprintf(&m->env, "MARKER=%s", m->path) > 0);
	const char *env[] = { m->env, NULL };
	crash_run_program(run, program(name), NULL, env);
}

static void
marker_free(marker *m)
{
	free(m->env);
	free(m->path);
	free(m->dir);
}

/* PRETTY_NAME from os-release, unquoted, read the test's own way. */
static void
os_pretty_name(char *out, size_t cap)
{
	char line[512];
	out[0] = '\0';
	FILE *f = fopen("/etc/os-release", "r");
	if (!f)
		f = fopen("/usr/lib/os-release", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "PRETTY_NAME=\"%[^\"]\"", out) == 1 || sscanf(line, "PRETTY_NAME=%[^\n]", out) == 1)
			break;
	if (f)
		fclose(f);
	(void)cap;
}

/* The child's launch-time offset against localtime_r's under the same TZ
 * (NULL: unset, /etc/localtime). */
static void
expect_offset_under(const char *tz)
{
	char env_tz[256];
	snprintf(env_tz, sizeof env_tz, "TZ=%s", tz ? tz : "");
	const char *env[] = { env_tz, NULL };
	crash_run run;
	crash_run_sample(&run, "null_deref", tz ? env : NULL);
	if (tz)
		setenv("TZ", tz, 1);
	tzset();
	time_t now = time(NULL);
	struct tm tm;
	cr_assert(localtime_r(&now, &tm));
	unsetenv("TZ");
	tzset();
	cr_expect(run.json.header.launch_time.set);
	cr_expect_eq(run.json.header.launch_time.tz_min, tm.tm_gmtoff / 60, "TZ %s: offset %d min, localtime_r's %ld",
	             tz ? tz : "unset", run.json.header.launch_time.tz_min, (long)(tm.tm_gmtoff / 60));
	crash_run_free(&run);
}

Test(capture, process_facts_are_the_systems, .timeout = 60)
{
	struct utsname u;
	cr_assert(uname(&u) == 0);
	char pretty[512], want[1024];
	os_pretty_name(pretty, sizeof pretty);
	snprintf(want, sizeof want, "%s%s(%s %s)", pretty, pretty[0] ? " " : "", u.sysname, u.release);
	time_t before = time(NULL);
	crash_run run;
	crash_run_sample(&run, "null_deref", NULL);
	time_t after = time(NULL);
	const pm_header *h = &run.json.header;
	cr_expect(h->os_version && strcmp(h->os_version, want) == 0, "OS Version \"%s\", want \"%s\"",
	          h->os_version ? h->os_version : "(none)", want);
	cr_expect(h->launch_time.set && h->launch_time.sec >= before - 1 && h->launch_time.sec <= after,
	          "Launch Time %lld is not between the spawn (%lld) and the exit (%lld)",
	          (long long)h->launch_time.sec, (long long)before, (long long)after);
	cr_expect(h->hardware_model && h->hardware_model[0], "no hardware model");
	crash_run_free(&run);
}

/* The launch time is the process's start, not the crashed thread's: the
 * crashing thread starts three seconds after the process. */
Test(capture, launch_time_is_the_process_start_not_the_crashed_threads, .timeout = 60)
{
	time_t before = time(NULL);
	crash_run run;
	crash_run_program(&run, program("late_thread"), NULL, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	const pm_header *h = &run.json.header;
	cr_expect(h->launch_time.set && h->launch_time.sec >= before - 1 && h->launch_time.sec <= before + 2,
	          "Launch Time %lld is not the spawn's (%lld) but later", (long long)h->launch_time.sec,
	          (long long)before);
	crash_run_free(&run);
}

/* The launch time's offset is the zone's own, whether fixed, with old
 * transitions, with daylight saving, or named (tzdata's files). */
Test(capture, launch_time_offset_is_localtimes, .timeout = 60)
{
	expect_offset_under(NULL);
	expect_offset_under(":/usr/share/zoneinfo/Etc/GMT-3");   /* fixed, +3 h */
	expect_offset_under(":/usr/share/zoneinfo/Asia/Kolkata"); /* +5:30, with old transitions */
	expect_offset_under(":/usr/share/zoneinfo/Europe/Paris"); /* daylight saving */
	expect_offset_under("America/New_York");                  /* a name: localtime_r */
}

Test(capture, previous_handler_runs_after_the_report, .timeout = 60)
{
	marker m;
	crash_run run;
	run_with_marker(&run, &m, "chain_previous");
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 42,
	          "the previous handler did not end the process (status 0x%x)", run.status);
	char *text = pm_test_slurp(m.path, NULL);
	cr_expect_str_eq(text, "original siginfo\n", "the previous handler did not see the original siginfo");
	cr_expect_str_eq(run.json.exception.signal_name, "SIGSEGV");
	free(text);
	crash_run_free(&run);
	marker_free(&m);
}

Test(capture, install_uninstall_install, .timeout = 60)
{
	crash_run run;
	crash_run_program(&run, program("reinstall"), NULL, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	cr_expect(run.json.complete);
	crash_run_free(&run);

	const char *args[] = { "uninstalled", NULL };
	crash_run_program_noreport(&run, program("reinstall"), args, NULL);
	cr_expect(died_of(run.status, SIGSEGV), "after pm_uninstall the default action must happen");
	cr_expect_eq(run.reports, 0, "no report after pm_uninstall");
	crash_run_free(&run);
}

static const char *
annotation(const pm_report *r, const char *key)
{
	for (uint32_t i = 0; i < r->annotation_count; i++)
		if (strcmp(r->annotations[i].key, key) == 0)
			return r->annotations[i].value;
	return "(none)";
}

/* The crash is on a thread other than main, with fn on its stack. */
static void
expect_worker_crashed_in(const pm_report *r, const char *fn)
{
	int32_t t = pm_report_crashed_thread(r);
	cr_assert(t >= 0);
	cr_expect_neq(r->threads[t].id, (uint64_t)r->header.pid, "the crash is on the worker");
	cr_expect(crash_frame_index(r, &r->threads[t], fn) >= 0, "no %s on the crashed thread", fn);
}

Test(capture, thread_from_before_install_overflows_its_stack, .timeout = 60)
{
	crash_run run;
	crash_run_program(&run, program("early_thread"), NULL, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	expect_worker_crashed_in(&run.json, "recurse_early");
	crash_run_free(&run);
}

Test(capture, reinstall_does_not_signal_a_thread_that_has_its_stack, .timeout = 60)
{
	const char *args[] = { "reinstall", NULL };
	crash_run run;
	crash_run_program(&run, program("early_thread"), args, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	const char *counts = annotation(&run.json, "interrupted");
	int first, second;
	cr_assert_eq(sscanf(counts, "%d %d", &first, &second), 2, "interrupted: %s", counts);
	cr_expect_eq(second, first, "the second pm_install interrupted the thread again (%s)", counts);
	/* It still has the stack the first install gave it. */
	expect_worker_crashed_in(&run.json, "recurse_early");
	crash_run_free(&run);
}

/* A thread started after install finds its stack's top page, where the
 * freeze puts its signal frame, in memory; pm_install's own thread does not
 * pay for it; a stack outlives its thread for the next one, and the handler
 * of that one's crash runs on it. */
Test(capture, started_thread_gets_a_warm_reused_stack, .timeout = 60)
{
	crash_run run;
	crash_run_program(&run, program("reused_stack"), NULL, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	cr_expect_str_eq(annotation(&run.json, "worker_top"), "1", "the worker's top page was not in memory");
	cr_expect_str_eq(annotation(&run.json, "installer_top"), "0", "pm_install wrote its own thread's stack");
	cr_expect_str_eq(annotation(&run.json, "reused"), "1", "the second thread did not get the first one's stack");
	expect_worker_crashed_in(&run.json, "crash_on_reused_stack");
	crash_run_free(&run);
}

/* early_thread in mode: the process dies of the worker's overflow, reported. */
static void
run_early_thread(crash_run *run, const char *mode)
{
	const char *args[] = { mode, NULL };
	crash_run_program(run, program("early_thread"), args, NULL);
	cr_expect(died_of(run->status, SIGSEGV), "status %d: not the worker's overflow", run->status);
	expect_worker_crashed_in(&run->json, "recurse_early");
}

/* pm_install returns before the threads have taken its setup requests;
 * pm_uninstall must not leave one pending, where it would meet the control
 * signal's default action (the end of the process). */
Test(capture, uninstall_right_after_install_leaves_no_request_pending, .timeout = 60)
{
	crash_run run;
	run_early_thread(&run, "uninstall_at_once");
	crash_run_free(&run);
}

/* With more than 30 threads, a helper thread asks them for their stacks
 * after pm_install has returned: the thread listed last gets its stack too. */
Test(capture, many_threads_from_before_install_all_get_stacks, .timeout = 60)
{
	crash_run run;
	run_early_thread(&run, "many");
	crash_run_free(&run);
}

/* When the helper thread cannot start, pm_install asks every thread itself
 * before it returns: the worker, which overflows at once, holds its stack. */
Test(capture, without_a_helper_pm_install_asks_every_thread_itself, .timeout = 60)
{
	crash_run run;
	run_early_thread(&run, "many_no_helper");
	cr_expect_str_eq(annotation(&run.json, "refused"), "1", "the helper's start was not refused once");
	crash_run_free(&run);
}

/* pm_uninstall waits for the helper before the control signal's handler
 * goes (a request after it would end the process), and a child forked
 * while the helper runs finds no helper to wait for.  Under qemu-user the
 * churn starts once every request is served: qemu reads a signal's action
 * twice as it delivers it, and a thread whose request was in delivery while
 * pm_uninstall restored the action entered the handler at address 0 (3 runs
 * in 40); the kernel delivers from one copy. */
Test(capture, uninstall_reinstall_and_fork_while_the_helper_asks, .timeout = 60)
{
	crash_run run;
	run_early_thread(&run, crash_emulator_threads() ? "many_uninstall_fork_settled" : "many_uninstall_fork");
	cr_expect_str_eq(annotation(&run.json, "child"), "0", "the forked child's status");
	crash_run_free(&run);
}

Test(capture, library_loaded_after_install_is_found, .timeout = 60)
{
	const char *lib = pm_test_build("tests/libpm_late_library.so");
	char *libpath = strdup(lib);
	const char *args[] = { libpath, NULL };
	crash_run run;
	crash_run_program(&run, program("dlopen_after"), args, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	const pm_image *im = crash_find_image(&run.json, "/libpm_late_library.so");
	cr_assert(im != NULL, "the dlopen'ed library is not among the images");
	cr_expect_str_eq(crash_image_build_id(im), crash_readelf_build_id(libpath));
	const pm_thread *t = &run.json.threads[pm_report_crashed_thread(&run.json)];
	cr_expect_eq(t->frames[0].image, (int32_t)(im - run.json.images), "frame 0 is not in the library");
	cr_expect_str_eq(t->frames[0].symbol, "late_library_crash");
	crash_run_free(&run);
	free(libpath);
}

Test(capture, a_thread_that_blocks_every_signal_is_listed_not_captured, .timeout = 60)
{
	crash_run run;
	crash_run_program(&run, program("blocked_thread"), NULL, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	cr_assert_eq(run.json.thread_count, 2 + crash_emulator_threads());
	const pm_thread *deaf = NULL;
	for (uint32_t i = 0; i < run.json.thread_count; i++)
		if (run.json.threads[i].name && strcmp(run.json.threads[i].name, "deaf-worker") == 0)
			deaf = &run.json.threads[i];
	cr_assert(deaf != NULL, "the thread that blocks signals is not listed by name");
	cr_expect_not(deaf->captured);
	cr_expect_eq(deaf->frame_count, 0);
	/* qemu-user keeps the program's signal masks to itself (/proc shows the
	 * emulator's): there the thread is only known not to have stopped. */
	const char *why = crash_emulator_threads() ? "did not stop" : "blocks the signal";
	cr_expect(deaf->note && strstr(deaf->note, why) != NULL, "note: %s", deaf->note ? deaf->note : "(none)");
	cr_expect(deaf->note && strstr(deaf->note, "(state S)") != NULL, "the note gives the kernel state");
	crash_run_free(&run);
}

/* The thread of the report called name; NULL (and a failed expectation) if none. */
static const pm_thread *
thread_named(const pm_report *r, const char *name)
{
	for (uint32_t i = 0; i < r->thread_count; i++)
		if (r->threads[i].name && strcmp(r->threads[i].name, name) == 0)
			return &r->threads[i];
	cr_expect_fail("no thread named %s", name);
	return NULL;
}

/* The reporter walks each thread once it has answered, not once all have: a
 * thread whose answer comes late (it blocks the freeze signal for a while,
 * running) must be walked from where it answered, in the first batch of
 * stacks read together or a later one; one that blocks it for good is
 * listed and noted. */
Test(capture, a_thread_that_answers_late_is_walked_from_its_answer, .timeout = 60)
{
	crash_run run;
	crash_run_program(&run, program("slow_answer"), NULL, NULL);
	cr_expect(died_of(run.status, SIGSEGV));
	cr_assert_eq(run.json.thread_count, 24 + crash_emulator_threads());
	for (int k = 1; k <= 2; k++) {
		char name[16];
		snprintf(name, sizeof name, "slow-%d", k);
		const pm_thread *t = thread_named(&run.json, name);
		if (!t)
			continue;
		cr_expect(t->captured, "%s was not captured: %s", name, t->note ? t->note : "(no note)");
		int at = crash_frame_index(&run.json, t, "unblock_all");
		cr_expect(at >= 0 && crash_frame_index(&run.json, t, "blocking_worker") == at + 1,
		          "%s is not walked from its answer in unblock_all (%u frames)", name, t->frame_count);
		cr_expect(k == 1 || t - run.json.threads >= 16, "%s is not in the second batch", name);
	}
	for (int k = 0; k < 20; k++) {
		char name[16];
		snprintf(name, sizeof name, "idle-%d", k);
		const pm_thread *t = thread_named(&run.json, name);
		cr_expect(t && t->captured && crash_frame_index(&run.json, t, "idle_worker") >= 0, "%s not walked", name);
	}
	const pm_thread *deaf = thread_named(&run.json, "deaf-worker");
	cr_assert(deaf != NULL);
	cr_expect_not(deaf->captured);
	const char *why = crash_emulator_threads() ? "did not stop" : "blocks the signal";
	cr_expect(deaf->note && strstr(deaf->note, why) != NULL, "note: %s", deaf->note ? deaf->note : "(none)");
	crash_run_free(&run);
}

Test(capture, fault_in_the_callback_keeps_the_report_and_the_signal, .timeout = 60)
{
	crash_run run;
	crash_run_program(&run, program("callback_fault"), NULL, NULL);
	cr_expect(died_of(run.status, SIGABRT), "status 0x%x: must die of the ORIGINAL signal", run.status);
	cr_expect_str_eq(run.json.exception.signal_name, "SIGABRT");
	cr_expect_gt(run.json.thread_count, 0, "the full report was replaced by a minimal one");
	crash_run_free(&run);
}

Test(capture, the_callback_is_told_each_phase_of_the_handler, .timeout = 60)
{
	marker m;
	crash_run run;
	run_with_marker(&run, &m, "phases");
	cr_expect(died_of(run.status, SIGSEGV));
	cr_assert_eq(run.json.thread_count, 2 + crash_emulator_threads());
	/* The other thread answered the freeze with its name, the crashed one named itself. */
	for (uint32_t i = 0; i < run.json.thread_count; i++)
		if (!crash_is_emulator_thread(&run.json.threads[i]))
			cr_expect_str_eq(run.json.threads[i].name ? run.json.threads[i].name : "(none)",
			                 run.json.threads[i].crashed ? "crash_phases" : "idle-worker");
	size_t len = 0;
	char *bytes = pm_test_slurp(m.path, &len);
	static const char *const names[] = { "freeze", "images", "threads", "symbols", "write", "fsync", "minidump" };
	enum { PHASES = sizeof names / sizeof names[0] };
	uint64_t v[1 + PHASES], sum = 0;
	cr_assert(bytes != NULL && len == sizeof v, "the callback wrote %zu bytes, not %zu", len, sizeof v);
	memcpy(v, bytes, sizeof v);
	for (size_t i = 0; i < PHASES; i++) {
		/* Every phase does work here: a second thread, files to write, a minidump. */
		cr_expect_gt(v[1 + i], 0, "phase %s took no time", names[i]);
		sum += v[1 + i];
	}
	/* The phases are parts of the handler, which runs after the fault and before the callback. */
	cr_expect_leq(sum, v[0], "the phases (%llu ns) exceed the fault-to-callback time (%llu ns)",
	              (unsigned long long)sum, (unsigned long long)v[0]);
	free(bytes);
	crash_run_free(&run);
	marker_free(&m);
}

Test(capture, fault_in_the_writer_leaves_a_minimal_report, .timeout = 60)
{
	char *preload;
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", pm_test_build("tests/libpm_fault_in_write.so")) > 0);
	const char *env[] = { preload, NULL };
	crash_run run;
	crash_run_program(&run, crash_sample_path("abort"), NULL, env);
	cr_expect(died_of(run.status, SIGABRT), "status 0x%x: must die of the ORIGINAL signal", run.status);
	cr_expect_str_eq(run.json.exception.signal_name, "SIGABRT");
	cr_expect_eq(run.json.thread_count, 0, "expected the minimal report (header and exception only)");
	cr_expect(run.json.complete);
	crash_run_free(&run);
	free(preload);
}

Test(capture, unwritable_directory_still_dies_of_the_signal, .timeout = 60)
{
	const char *args[] = { "notdir", NULL };
	crash_run run;
	crash_run_program_noreport(&run, program("hostile_disk"), args, NULL);
	cr_expect(died_of(run.status, SIGSEGV), "status 0x%x", run.status);
	crash_run_free(&run);
}

Test(capture, file_size_limit_still_dies_of_the_signal, .timeout = 60)
{
	const char *args[] = { "fsize", NULL };
	crash_run run;
	crash_run_program_noreport(&run, program("hostile_disk"), args, NULL);
	cr_expect(died_of(run.status, SIGSEGV), "status 0x%x: SIGXFSZ must not replace SIGSEGV", run.status);
	cr_expect_eq(run.reports, 0, "a cut-short report must not be renamed into place");
	crash_run_free(&run);
}

Test(capture, core_dump_as_without_postmortem, .timeout = 60)
{
	char pattern[256] = "";
	FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");
	if (f) {
		if (!fgets(pattern, sizeof pattern, f))
			pattern[0] = '\0';
		fclose(f);
	}
	if (pattern[0] == '|')
		cr_skip_test("core dumps go to a helper program (%s): not checkable here", pattern);
	char *dir = pm_test_tmpdir(), *cmd, *out;
	cr_assert(asprintf(&cmd, "cd '%s' && ulimit -c unlimited && POSTMORTEM_DIR='%s/r' '%s'; echo status=$?",
	                   dir, dir, crash_sample_path("null_deref")) > 0);
	pm_test_run(cmd, &out);
	cr_expect(strstr(out, "status=139") != NULL, "%s", out);
	cr_expect(strstr(out, "core dumped") != NULL, "the shell saw no core dump:\n%s", out);
	free(out);
	free(cmd);
	cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	pm_test_run(cmd, NULL);
	free(cmd);
	free(dir);
}
