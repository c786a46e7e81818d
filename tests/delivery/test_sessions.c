/*
 * test_sessions.c — release health without Spotlight (docs/store.md and
 * docs/sentry.md, "Sessions"): the runs file's records read or refused, the
 * kernel log's and the memory cgroup's words, each way a real run of
 * sample_crashes/runs.c ends closed into its session (a live run left alone,
 * a fork's child holding nothing, a reinstall keeping one session),
 * `postmortem run`'s own record, `stats`, the session payload against
 * Sentry's documented fields, and delivery to a scripted server: a crashed
 * run's session in its crash's envelope, the rest in envelopes of their own,
 * each once, nothing lost while the server is down, Sentry's rate limit on
 * sessions respected, none sent without a release, the preload library's
 * background upload, and when pm_upload_start loads the uploader for them.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cgroup_oom.h"
#include "delivery/store/sessions.h"
#include "delivery/upload/sentry.h"
#include "envelope_util.h"
#include "http_server.h"
#include "reporter/install/session.h"
#include "runs_util.h"
#include "upload_util.h"
#include "util.h"

TestSuite(sessions, .timeout = 300);

#define KEY "abcdef123"

static const char *const versioned[] = { "POSTMORTEM_APP_VERSION=3.1", NULL };

static pm_store *
open_store(const char *dir, bool read_only)
{
	pm_store_options o = { .dir = dir, .read_only = read_only };
	pm_store *s;
	cr_assert_eq(pm_store_open(&s, &o), PM_OK);
	return s;
}

/* The session of run pid in s, or NULL. */
static const pm_session *
session_of(const pm_store *s, pid_t pid)
{
	const pm_session *found = NULL;
	for (size_t i = 0; i < pm_store_session_count(s); i++) {
		const pm_session *ss = pm_store_session_get(s, i);
		if (ss->pid == pid) {
			cr_assert_null(found, "two sessions of run %d", (int)pid);
			found = ss;
		}
	}
	return found;
}

static const char *
status_name(pm_session_status st)
{
	return st == PM_SESSION_EXITED ? "exited" : st == PM_SESSION_CRASHED ? "crashed" : "abnormal";
}

static void
expect_session(const pm_store *s, pid_t pid, pm_session_status status, int exit_code, uint32_t errors,
               const char *mechanism)
{
	const pm_session *ss = session_of(s, pid);
	cr_assert(ss, "no session of run %d", (int)pid);
	cr_expect_eq(ss->status, status, "run %d: %s, not %s", (int)pid, status_name(ss->status), status_name(status));
	cr_expect_eq(ss->exit_code, exit_code, "run %d", (int)pid);
	cr_expect_eq(ss->errors, errors, "run %d: %u errors", (int)pid, ss->errors);
	cr_expect_str_eq(ss->mechanism, mechanism, "run %d", (int)pid);
	cr_expect_gt(ss->started_us, 0);
	cr_expect(ss->ended_us == 0 || ss->ended_us >= ss->started_us, "run %d ended before it began", (int)pid);
	cr_expect_eq(strlen(ss->sid), 36u);
}

/* ---- the record, the kernel log and the cgroup, as text ---------------------------- */

Test(sessions, a_record_is_read_whole_or_not_at_all)
{
	static const char whole[] = "postmortem-session 1\npid 4321\nstarted 1700000000123456\napp_id app\n"
	                            "app_version 1.4 (212)\nexe app-bin\noom_kill 2 /sys/fs/cgroup/x/memory.events\n"
	                            "end signal 9 1700000001000000 3\n";
	pmi_run r;
	cr_assert(pmi_run_parse(whole, sizeof whole, &r));
	cr_expect_eq(r.pid, 4321);
	cr_expect_eq(r.started_us, 1700000000123456);
	cr_expect_str_eq(r.app_id, "app");
	cr_expect_str_eq(r.app_version, "1.4 (212)");
	cr_expect_str_eq(r.exe, "app-bin");
	cr_expect_eq(r.oom_start, 2);
	cr_expect_str_eq(r.oom_file, "/sys/fs/cgroup/x/memory.events");
	cr_expect_eq(r.end, PMI_RUN_SIGNAL);
	cr_expect_eq(r.end_value, 9);
	cr_expect_eq(r.end_us, 1700000001000000);
	cr_expect_eq(r.oom_end, 3);

	static const char exited[] = "postmortem-session 1\npid 7\nstarted 5\nend exit 3 6\n";
	cr_assert(pmi_run_parse(exited, sizeof exited - 1, &r));
	cr_expect_eq(r.end, PMI_RUN_EXIT);
	cr_expect_eq(r.end_value, 3);
	cr_expect_str_eq(r.app_version, "???", "a version never written is unknown");

	/* Cut short inside the end line: the run ended without a word that can be read. */
	static const char cut_end[] = "postmortem-session 1\npid 7\nstarted 5\nend exit 3";
	cr_assert(pmi_run_parse(cut_end, sizeof cut_end - 1, &r));
	cr_expect_eq(r.end, PMI_RUN_RUNNING);

	static const char *const refused[] = {
		"",
		"postmortem-session 2\npid 7\nstarted 5\n",   /* another format */
		"postmortem-session 1\npid 7\n",              /* no start time */
		"postmortem-session 1\nstarted 5\npid 7",     /* the pid line cut short */
		"postmortem-session 1\npid -7\nstarted 5\n",
		"postmortem-session 1\npid 7x\nstarted 5\n",
		"postmortem-session 1\npid 0\nstarted 5\n",
		"postmortem-session 1\npid 99999999999999999999999\nstarted 5\n",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		cr_expect_not(pmi_run_parse(refused[i], strlen(refused[i]), &r), "read: %s", refused[i]);

	/* What the writer makes, the reader reads: values cut to fit, control characters replaced. */
	char long_id[600];
	memset(long_id, 'a', sizeof long_id - 1);
	long_id[sizeof long_id - 1] = '\0';
	long_id[3] = '\n';
	pmi_run_start start = { .pid = 12, .started_us = 34, .app_id = long_id, .app_version = "2.0", .exe = "e",
	                        .oom_kills = -1 };
	char buf[PMI_RUN_TEXT - PMI_RUN_END_ROOM];
	size_t n = pmi_run_format(buf, sizeof buf, &start);
	cr_assert(pmi_run_parse(buf, n, &r));
	cr_expect_eq(r.pid, 12);
	cr_expect_eq(strlen(r.app_id), sizeof r.app_id - 1);
	cr_expect_eq(r.app_id[3], '?');
	cr_expect_str_eq(r.app_version, "2.0");
}

Test(sessions, the_kernel_log_names_the_oom_killers_victims)
{
	pmi_oom_kill k;
	static const char global[] = "3,812,5000123,-;Out of memory: Killed process 4321 (crash_runs) total-vm:9000kB, "
	                             "anon-rss:8000kB\n SUBSYSTEM=x\n";
	cr_assert(pmi_kmsg_oom(global, sizeof global - 1, &k));
	cr_expect_eq(k.pid, 4321);
	cr_expect_str_eq(k.comm, "crash_runs");
	cr_expect_eq(k.boot_us, 5000123);
	static const char memcg[] = "3,9,77,-;Memory cgroup out of memory: Killed process 77 (a b) total-vm:1kB";
	cr_assert(pmi_kmsg_oom(memcg, sizeof memcg - 1, &k));
	cr_expect_eq(k.pid, 77);
	cr_expect_str_eq(k.comm, "a b");
	static const char *const others[] = {
		"6,1,2,-;oom-kill:constraint=CONSTRAINT_NONE,task=x,pid=5,uid=0",
		"6,1,2,-;Killed process",
		"6,1,2,-;Killed process 12 crash",
		"Killed process 12 (x)",
		"6,1;Killed process 12 (x)",
		"6,1,2,-;usb 1-1: new device\n Killed process 12 (x)",
	};
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		cr_expect_not(pmi_kmsg_oom(others[i], strlen(others[i]), &k), "%s", others[i]);

	/* A kill of the run's pid and name after its start names it; another pid, or before, does not. */
	pmi_system sys = { .mono_real_us = 1000000000, .kmsg_read = true };
	pmi_oom_kill kills[] = { { .pid = 50, .comm = "app", .boot_us = 500 }, { .pid = 60, .comm = "app", .boot_us = 10 },
	                         { .pid = 70, .comm = "other", .boot_us = 900 } };
	sys.kills = kills;
	sys.kill_count = 3;
	pmi_run run = { .pid = 50, .started_us = 1000000100 };
	strcpy(run.exe, "app");
	cr_expect_eq(pmi_system_oom_kill(&sys, &run), 1000000500);
	run.pid = 60;
	cr_expect_eq(pmi_system_oom_kill(&sys, &run), 0, "killed before the run began: another process");
	run.pid = 70;
	cr_expect_eq(pmi_system_oom_kill(&sys, &run), 0, "another name");
}

Test(sessions, the_memory_cgroup_that_counts_oom_kills)
{
	char file[256];
	cr_assert(pmi_cgroup_oom_file_of("0::/user.slice/app.scope\n", file, sizeof file));
	cr_expect_str_eq(file, "/sys/fs/cgroup/user.slice/app.scope/memory.events");
	cr_assert(pmi_cgroup_oom_file_of("12:cpu,cpuacct:/\n4:memory:/docker/abc\n0::/\n", file, sizeof file));
	cr_expect_str_eq(file, "/sys/fs/cgroup/memory/docker/abc/memory.oom_control");
	cr_assert(pmi_cgroup_oom_file_of("5:hugetlb,memory:/x", file, sizeof file));
	cr_expect_str_eq(file, "/sys/fs/cgroup/memory/x/memory.oom_control");
	cr_expect_not(pmi_cgroup_oom_file_of("1:name=systemd:/\n3:memoryless:/y\n", file, sizeof file));
	cr_expect_not(pmi_cgroup_oom_file_of("0::/a\n", file, 20), "a path that does not fit");
	cr_expect_eq(pmi_cgroup_oom_count("low 0\nhigh 0\nmax 2\noom 1\noom_kill 3\n"), 3);
	cr_expect_eq(pmi_cgroup_oom_count("oom_kill_disable 0\nunder_oom 0\noom_kill 7\n"), 7);
	cr_expect_eq(pmi_cgroup_oom_count("oom 1\n"), -1);
	cr_expect_eq(pmi_cgroup_oom_count("oom_kill x\n"), -1);
}

/* ---- real runs -------------------------------------------------------------------- */

/* `postmortem ARGS` (shell words), its status; the output in *out. */
static int
cli(const char *args, char **out)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' %s", pm_test_build("tools/postmortem"), args) > 0);
	int status = pm_test_run(cmd, out);
	free(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The id of the one report in dir's pending/. */
static void
pending_id(const char *dir, char out[64])
{
	pm_store *s = open_store(dir, true);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 1u);
	snprintf(out, 64, "%s", pm_store_get(s, PM_STATE_PENDING, 0)->id);
	pm_store_close(s);
}

Test(sessions, each_way_a_run_ends_is_told_apart)
{
	static const char *const modes[] = { "exit0", "exit3", "_exit0", "crash", "wait", "fork", "reinstall" };
	enum { N = sizeof modes / sizeof modes[0] };
	char *dir = pm_test_tmpdir();
	pid_t pid[N];
	for (size_t i = 0; i < N; i++) {
		int status;
		pid[i] = runs_run("crash_runs", dir, modes[i], versioned, &status);
	}
	char report[64];
	pending_id(dir, report);

	pm_store *s = open_store(dir, false);
	cr_expect_eq(pm_store_session_count(s), (size_t)N, "one session a run: a fork's child and a reinstall add none");
	expect_session(s, pid[0], PM_SESSION_EXITED, 0, 0, "");
	expect_session(s, pid[1], PM_SESSION_EXITED, 3, 1, "");
	expect_session(s, pid[2], PM_SESSION_EXITED, 0, 0, "");
	expect_session(s, pid[3], PM_SESSION_CRASHED, -1, 1, "");
	expect_session(s, pid[4], PM_SESSION_ABNORMAL, -1, 0, "");
	expect_session(s, pid[5], PM_SESSION_EXITED, 0, 0, "");
	expect_session(s, pid[6], PM_SESSION_EXITED, 0, 0, "");
	const pm_session *crashed = session_of(s, pid[3]);
	cr_expect_str_eq(crashed->report, report);
	cr_expect_eq(crashed->signal, SIGSEGV);
	pm_report r;
	cr_assert_eq(pm_store_load(s, report, &r, NULL), PM_OK);
	cr_expect_eq(crashed->ended_us, r.header.time.sec * 1000000 + r.header.time.usec, "it ended where it crashed");
	pm_report_free(&r);
	for (size_t i = 0; i < N; i++) {
		const pm_session *ss = session_of(s, pid[i]);
		cr_expect_str_eq(ss->release, "crash_runs@3.1");
		cr_expect_not(ss->sent);
	}
	char sids[N][37];
	for (size_t i = 0; i < N; i++)
		strcpy(sids[i], session_of(s, pid[i])->sid);
	pm_store_close(s);

	/* Collected once: the runs file holds no record any more, the sessions are files now. */
	char *runs;
	cr_assert(asprintf(&runs, "%s/runs", dir) > 0);
	int fd = open(runs, O_RDONLY);
	cr_assert_geq(fd, 0);
	char c;
	for (off_t at = 0; pread(fd, &c, 1, at) > 0; at += PMI_RUN_BYTES)
		cr_expect_eq(c, 0, "record %lld was not freed", (long long)(at / PMI_RUN_BYTES));
	cr_expect_lt(pmi_run_next(fd, 0), 0, "the runs file still holds data: no hole was made");
	close(fd);
	free(runs);
	s = open_store(dir, false);
	cr_expect_eq(pm_store_session_count(s), (size_t)N);
	for (size_t i = 0; i < N; i++) {
		cr_expect_str_eq(session_of(s, pid[i])->sid, sids[i], "a session's id never changes");
		cr_expect(upload_exists(upload_path(dir, "sessions", sids[i], ".session")));
	}
	pm_store_close(s);
	pm_test_rmdir(dir);
}

/* The bytes of dir's runs file and whether sessions/ exists. */
static char *
runs_bytes(const char *dir, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/runs", dir);
	return pm_test_slurp(path, len);
}

Test(sessions, a_store_that_only_looks_collects_in_memory)
{
	char *dir = pm_test_tmpdir();
	pid_t pids[RUNS_SIX];
	runs_six(dir, versioned, pids);
	size_t before_len, after_len;
	char *before = runs_bytes(dir, &before_len);
	pm_store *s = open_store(dir, true);
	cr_expect_eq(pm_store_session_count(s), (size_t)RUNS_SIX);
	expect_session(s, pids[3], PM_SESSION_EXITED, 3, 1, "");
	expect_session(s, pids[4], PM_SESSION_CRASHED, -1, 1, "");
	expect_session(s, pids[5], PM_SESSION_ABNORMAL, -1, 0, "");
	pm_store_close(s);
	char *after = runs_bytes(dir, &after_len);
	cr_expect(before_len == after_len && memcmp(before, after, before_len) == 0, "a look changed the runs file");
	cr_expect_not(upload_exists(upload_path(dir, "", "sessions", "")), "a look made sessions/");
	free(before);
	free(after);
	pm_test_rmdir(dir);
}

/* Start crash_runs MODE in dir and read the line it prints first (into line). */
static pid_t
start_run(const char *dir, const char *mode, char *line, size_t cap)
{
	int out[2];
	cr_assert_eq(pipe(out), 0);
	char *env_dir;
	cr_assert(asprintf(&env_dir, "POSTMORTEM_DIR=%s", dir) > 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		char *const envp[] = { env_dir, "POSTMORTEM_APP_VERSION=3.1", NULL };
		execle(pm_test_build("sample_crashes/crash_runs"), "crash_runs", mode, (char *)NULL, envp);
		_exit(127);
	}
	close(out[1]);
	ssize_t n = read(out[0], line, cap - 1);
	cr_assert_gt(n, 0, "crash_runs %s said nothing", mode);
	line[n] = '\0';
	close(out[0]);
	free(env_dir);
	return pid;
}

Test(sessions, a_run_that_goes_on_is_not_collected_and_a_forks_child_holds_nothing)
{
	char *dir = pm_test_tmpdir(), line[64];
	pid_t live = start_run(dir, "wait", line, sizeof line);
	pm_store *s = open_store(dir, false);
	cr_expect_null(session_of(s, live), "a live run was collected");
	pm_store_close(s);
	kill(live, SIGKILL);
	waitpid(live, NULL, 0);
	s = open_store(dir, false);
	expect_session(s, live, PM_SESSION_ABNORMAL, -1, 0, "");
	pm_store_close(s);

	/* The parent exits while its forked child lives on: the parent's run is over all the same. */
	pid_t parent = start_run(dir, "forkwait", line, sizeof line);
	int child = 0;
	cr_assert_eq(sscanf(line, "child %d", &child), 1, "%s", line);
	waitpid(parent, NULL, 0);
	s = open_store(dir, false);
	/* Killed before anything is asserted: a failed assertion must not leave it
	 * holding the test's output open (meson would wait for it). */
	kill(child, SIGKILL);
	expect_session(s, parent, PM_SESSION_EXITED, 0, 0, "");
	cr_expect_null(session_of(s, child));
	pm_store_close(s);
	pm_test_rmdir(dir);
}

Test(sessions, a_record_left_before_this_boot_or_cut_short)
{
	char *dir = pm_test_tmpdir(), path[4096];
	/* A run that began long before this boot and never ended: the machine went down under it. */
	snprintf(path, sizeof path, "%s/runs", dir);
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	pmi_run_start start = { .pid = 4242, .started_us = 1000000, .app_id = "app", .app_version = "1", .exe = "app",
	                        .oom_kills = -1 };
	char buf[PMI_RUN_TEXT - PMI_RUN_END_ROOM];
	size_t n = pmi_run_format(buf, sizeof buf, &start);
	cr_assert_eq(pwrite(fd, buf, n, 7 * PMI_RUN_BYTES), (ssize_t)n);
	/* A writer killed inside its write. */
	cr_assert_eq(pwrite(fd, "postmortem-session 1\npid 4", 26, 9 * PMI_RUN_BYTES), 26);
	close(fd);
	pm_store *s = open_store(dir, false);
	cr_assert_eq(pm_store_session_count(s), 1u);
	expect_session(s, 4242, PM_SESSION_ABNORMAL, -1, 0, "reboot");
	pm_store_close(s);
	size_t len;
	char *after = runs_bytes(dir, &len);
	cr_expect_eq(after[9 * PMI_RUN_BYTES], 0, "the torn record was not freed");
	free(after);
	pm_test_rmdir(dir);
}

Test(sessions, postmortem_run_records_the_run_it_watched)
{
	static const char *const modes[] = { "exit3", "crash", "kill9" };
	char *dir = pm_test_tmpdir();
	for (size_t i = 0; i < 3; i++) {
		char *args, *out;
		cr_assert(asprintf(&args, "run --dir '%s' --json -- '%s' %s", dir,
		                   pm_test_build("sample_crashes/crash_plain_runs"), modes[i]) > 0);
		setenv("POSTMORTEM_APP_VERSION", "3.1", 1);
		cli(args, &out);
		unsetenv("POSTMORTEM_APP_VERSION");
		free(args);
		free(out);
	}
	pm_store *s = open_store(dir, false);
	cr_assert_eq(pm_store_session_count(s), 3u, "one session a run: the preloaded program records none");
	pm_session by_status[3];
	memset(by_status, 0, sizeof by_status);
	for (size_t i = 0; i < 3; i++) {
		const pm_session *ss = pm_store_session_get(s, i);
		cr_expect_str_eq(ss->release, "crash_plain_runs@3.1");
		by_status[ss->status] = *ss;
	}
	cr_expect_eq(by_status[PM_SESSION_EXITED].exit_code, 3);
	cr_expect_eq(by_status[PM_SESSION_EXITED].errors, 1u);
	cr_expect_eq(by_status[PM_SESSION_CRASHED].signal, SIGSEGV);
	cr_expect_neq(by_status[PM_SESSION_CRASHED].report[0], 0);
	cr_expect_eq(by_status[PM_SESSION_ABNORMAL].signal, SIGKILL);
	cr_expect_str_eq(by_status[PM_SESSION_ABNORMAL].mechanism, "SIGKILL");
	pm_store_close(s);
	pm_test_rmdir(dir);
}

Test(sessions, stats_counts_each_release_as_sentry_does)
{
	char *dir = pm_test_tmpdir(), *args, *out;
	pid_t pids[RUNS_SIX];
	runs_six(dir, versioned, pids);
	int status;
	runs_run("crash_runs", dir, "exit0", NULL, &status); /* no version: a release of its own */
	cr_assert(asprintf(&args, "stats --dir '%s' --json", dir) > 0);
	cr_assert_eq(cli(args, &out), 0, "%s", out);
	cJSON *a = cJSON_Parse(strchr(out, '['));
	cr_assert(a, "%s", out);
	cr_assert_eq(cJSON_GetArraySize(a), 2, "%s", out);
	const cJSON *rel = NULL, *o;
	cJSON_ArrayForEach(o, a)
		if (strcmp(str_of(o, "release"), "crash_runs@3.1") == 0)
			rel = o;
	cr_assert(rel, "%s", out);
	static const struct { const char *key; int want; } counts[] = {
		{ "runs", 6 }, { "exited", 3 }, { "errored", 1 }, { "crashed", 1 }, { "abnormal", 1 }, { "oom_kills", 0 },
	};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		cr_expect_eq(cJSON_GetObjectItem(rel, counts[i].key)->valueint, counts[i].want, "%s: %s", counts[i].key, out);
	double free_rate = cJSON_GetObjectItem(rel, "crash_free")->valuedouble;
	cr_expect(free_rate > 0.8333 && free_rate < 0.8334, "crash-free %f", free_rate);
	cJSON_Delete(a);
	free(out);
	free(args);
	cr_assert(asprintf(&args, "stats --dir '%s'", dir) > 0);
	cr_assert_eq(cli(args, &out), 0, "%s", out);
	cr_expect(strstr(out, "crash_runs (version unknown)"), "%s", out);
	const char *line = strstr(out, "crash_runs@3.1");
	cr_assert(line, "%s", out);
	int runs, exited, errored, crashed, abnormal, oom;
	double pct;
	cr_assert_eq(sscanf(line, "crash_runs@3.1 %d %d %d %d %d %d %lf%%", &runs, &exited, &errored, &crashed,
	                    &abnormal, &oom, &pct), 7, "%s", line);
	cr_expect(runs == 6 && exited == 3 && errored == 1 && crashed == 1 && abnormal == 1 && oom == 0, "%s", line);
	cr_expect(pct > 83.2 && pct < 83.4, "%s", line);
	free(out);
	free(args);
	pm_test_rmdir(dir);
}

/* ---- the payload -------------------------------------------------------------------- */

Test(sessions, each_payload_is_a_session_update_as_sentry_documents_it)
{
	char *dir = pm_test_tmpdir();
	pid_t pids[RUNS_SIX];
	runs_six(dir, versioned, pids);
	pm_store *s = open_store(dir, true);
	for (int i = 0; i < RUNS_SIX; i++) {
		const pm_session *ss = session_of(s, pids[i]);
		cJSON *u = pmi_sentry_session(ss, "staging", 1800000000000000);
		cr_assert(u);
		expect_session_update(u, "staging", NULL);
		cr_expect_str_eq(str_of(cJSON_GetObjectItem(u, "attrs"), "release"), "crash_runs@3.1");
		cr_expect_str_eq(str_of(u, "sid"), ss->sid);
		cr_expect_eq(cJSON_GetObjectItem(u, "errors")->valueint, (int)ss->errors);
		/* An end nobody saw has no duration, and the time it was found as its timestamp. */
		cr_expect_eq(cJSON_GetObjectItem(u, "duration") == NULL, ss->ended_us == 0);
		cJSON_Delete(u);
	}
	pm_session unversioned = *session_of(s, pids[0]);
	unversioned.release[0] = '\0';
	cr_expect_null(pmi_sentry_session(&unversioned, "staging", 0), "Sentry drops a session without a release");
	pm_store_close(s);
	pm_test_rmdir(dir);
}

/* ---- delivery ------------------------------------------------------------------------ */

/* `postmortem upload --dir dir` to srv's port with a DSN, environment staging: its status, its output in *out. */
static int
upload_to(const http_server *srv, const char *dir, char **out)
{
	char *args;
	cr_assert(asprintf(&args, "--dsn http://" KEY "@127.0.0.1:%u/42 --attempts 2 --environment staging",
	                   http_server_port(srv)) > 0);
	int rc = upload_cli(dir, args, out);
	free(args);
	return rc;
}

/* The session items of envelope e, parsed (up to max), and how many. */
static size_t
sessions_in(const envelope *e, cJSON **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < e->count; i++)
		if (strcmp(str_of(e->items[i].head, "type"), "session") == 0 && n < max)
			out[n++] = envelope_item_json(e, i);
	return n;
}

Test(sessions, uploads_send_each_session_once_with_its_crash_where_it_crashed)
{
	static const http_reply script[] = { { 0 } };
	char *dir = pm_test_tmpdir(), *out;
	pid_t pids[RUNS_SIX];
	runs_six(dir, versioned, pids);
	http_server *srv = http_server_start(script);
	cr_assert_eq(upload_to(srv, dir, &out), 0, "%s", out);
	cr_expect(strstr(out, "sent 1, kept 0, quarantined 0"), "%s", out);
	cr_expect(strstr(out, "sessions: sent 6, kept 0, not sent without a release 0"), "%s", out);
	free(out);
	cr_assert_eq(http_server_count(srv), 2, "the crash's envelope, then one of sessions");

	/* The crash's envelope: the event, its files, and its run's session, which agree. */
	envelope e;
	envelope_parse(http_server_request(srv, 0), &e);
	cr_assert_str_eq(str_of(e.items[0].head, "type"), "event");
	cJSON *event = envelope_item_json(&e, 0), *in_crash[4];
	cr_assert_eq(sessions_in(&e, in_crash, 4), 1u, "the crashed run's session goes with its crash");
	expect_session_update(in_crash[0], "staging", NULL);
	cr_expect_str_eq(str_of(in_crash[0], "status"), "crashed");
	cr_expect_str_eq(str_of(cJSON_GetObjectItem(in_crash[0], "attrs"), "release"), str_of(event, "release"));
	cr_expect_str_eq(str_of(cJSON_GetObjectItem(in_crash[0], "attrs"), "environment"), str_of(event, "environment"));
	cr_expect_str_eq(str_of(in_crash[0], "timestamp"), str_of(event, "timestamp"), "it ended where it crashed");
	cr_expect_geq(cJSON_GetObjectItem(in_crash[0], "errors")->valueint, 1);
	cJSON_Delete(in_crash[0]);
	cJSON_Delete(event);
	envelope_free(&e);

	/* The others in an envelope of their own, with no event id. */
	envelope_parse(http_server_request(srv, 1), &e);
	cr_expect_null(cJSON_GetObjectItem(e.head, "event_id"));
	cr_expect_not_null(str_of(e.head, "sent_at"));
	cJSON *rest[8];
	size_t n = sessions_in(&e, rest, 8);
	cr_expect_eq(n, (size_t)e.count, "only sessions");
	cr_assert_eq(n, 5u);
	int exited = 0, errored = 0, abnormal = 0;
	for (size_t i = 0; i < n; i++) {
		expect_session_update(rest[i], "staging", NULL);
		const char *st = str_of(rest[i], "status");
		int errors = cJSON_GetObjectItem(rest[i], "errors")->valueint;
		exited += !strcmp(st, "exited") && errors == 0;
		errored += !strcmp(st, "exited") && errors == 1;
		abnormal += !strcmp(st, "abnormal");
		cJSON_Delete(rest[i]);
	}
	cr_expect(exited == 3 && errored == 1 && abnormal == 1, "%d exited, %d errored, %d abnormal", exited, errored,
	          abnormal);
	envelope_free(&e);

	/* Delivered means done: a second pass sends nothing. */
	cr_assert_eq(upload_to(srv, dir, &out), 0, "%s", out);
	cr_expect(strstr(out, "sessions: sent 0, kept 0"), "%s", out);
	cr_expect_eq(http_server_count(srv), 2, "a delivered session was sent again");
	free(out);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

Test(sessions, a_server_that_is_down_loses_nothing)
{
	static const http_reply script[] = { { 0 } };
	char *dir = pm_test_tmpdir(), *out;
	int status;
	runs_run("crash_runs", dir, "exit0", versioned, &status);
	runs_run("crash_runs", dir, "exit3", versioned, &status);
	http_server *dead = http_server_start(script);
	http_server_stop(dead);
	cr_expect_eq(upload_to(dead, dir, &out), 1, "%s", out);
	cr_expect(strstr(out, "sessions: sent 0, kept 2"), "%s", out);
	free(out);
	http_server *srv = http_server_start(script);
	cr_expect_eq(upload_to(srv, dir, &out), 0, "%s", out);
	cr_expect(strstr(out, "sessions: sent 2, kept 0"), "%s", out);
	cr_expect_eq(http_server_count(srv), 1);
	free(out);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

Test(sessions, sentrys_rate_limit_on_sessions_holds_them_back)
{
	/* The crash's envelope is taken, its reply limits sessions for a minute: the others wait. */
	static const http_reply limited_after[] = {
		{ .status = 200, .headers = "X-Sentry-Rate-Limits: 60:session:organization\r\n" }, { 0 },
	};
	char *dir = pm_test_tmpdir(), *out;
	pid_t pids[RUNS_SIX];
	runs_six(dir, versioned, pids);
	http_server *srv = http_server_start(limited_after);
	cr_expect_eq(upload_to(srv, dir, &out), 1, "%s", out);
	cr_expect(strstr(out, "sent 1, kept 0"), "%s", out);
	cr_expect(strstr(out, "sessions: sent 1, kept 5"), "%s", out);
	cr_expect_eq(http_server_count(srv), 1, "sessions were sent while Sentry limited them");
	free(out);
	http_server_stop(srv);

	/* A 429 for the sessions' own envelope, limited for an hour: they wait, no second try. */
	static const http_reply refused[] = {
		{ .status = 429, .headers = "Retry-After: 1\r\nX-Sentry-Rate-Limits: 3600:session:key\r\n" }, { 0 },
	};
	srv = http_server_start(refused);
	cr_expect_eq(upload_to(srv, dir, &out), 1, "%s", out);
	cr_expect(strstr(out, "sessions: sent 0, kept 5"), "%s", out);
	cr_expect_eq(http_server_count(srv), 1);
	free(out);
	http_server_stop(srv);

	/* A limit on events only leaves sessions alone. */
	static const http_reply other[] = {
		{ .status = 200, .headers = "X-Sentry-Rate-Limits: 60:error;transaction:key\r\n" }, { 0 },
	};
	srv = http_server_start(other);
	cr_expect_eq(upload_to(srv, dir, &out), 0, "%s", out);
	cr_expect(strstr(out, "sessions: sent 5, kept 0"), "%s", out);
	free(out);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

Test(sessions, sessions_without_a_release_are_settled_not_sent)
{
	static const http_reply script[] = { { 0 } };
	char *dir = pm_test_tmpdir(), *out;
	int status;
	runs_run("crash_runs", dir, "exit0", NULL, &status);
	runs_run("crash_runs", dir, "exit3", NULL, &status);
	http_server *srv = http_server_start(script);
	cr_expect_eq(upload_to(srv, dir, &out), 0, "%s", out);
	cr_expect(strstr(out, "sessions: sent 0, kept 0, not sent without a release 2"), "%s", out);
	cr_expect(strstr(out, "Sentry drops them"), "%s", out);
	cr_expect_eq(http_server_count(srv), 0);
	free(out);
	cr_expect_eq(upload_to(srv, dir, &out), 0, "%s", out);
	cr_expect(strstr(out, "not sent without a release 0"), "settled once: %s", out);
	free(out);
	/* Still counted locally. */
	char *args;
	cr_assert(asprintf(&args, "stats --dir '%s' --json", dir) > 0);
	cr_assert_eq(cli(args, &out), 0, "%s", out);
	cr_expect(strstr(out, "\"crash_runs (version unknown)\""), "%s", out);
	free(out);
	free(args);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

Test(sessions, the_preload_librarys_upload_sends_them_with_a_pending_crash)
{
	static const http_reply script[] = { { 0 } };
	char *dir = pm_test_tmpdir();
	pid_t pids[RUNS_SIX];
	runs_six(dir, versioned, pids);
	http_server *srv = http_server_start(script);
	cr_assert(upload_preloaded_sleep(dir, KEY, srv, 2),
	          "the preloaded program's uploader did not send the crash and the sessions");
	size_t total = 0;
	for (size_t i = 0; i < 2; i++) {
		envelope e;
		cJSON *ss[8];
		envelope_parse(http_server_request(srv, i), &e);
		size_t n = sessions_in(&e, ss, 8);
		for (size_t k = 0; k < n; k++)
			cJSON_Delete(ss[k]);
		total += n;
		envelope_free(&e);
	}
	cr_expect_eq(total, (size_t)RUNS_SIX, "the sleeping program's own run is still going: not among them");
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

/* Write a record of the runs file of dir at slot, ended (at end_us) or not; unlocked. */
static void
put_record(const char *dir, unsigned slot, int64_t pid, uint64_t started_us, uint64_t end_us)
{
	char path[4096], buf[PMI_RUN_TEXT];
	snprintf(path, sizeof path, "%s/runs", dir);
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	pmi_run_start start = { .pid = pid, .started_us = started_us, .app_id = "app", .app_version = "1", .exe = "app",
	                        .oom_kills = -1 };
	size_t n = pmi_run_format(buf, PMI_RUN_TEXT - PMI_RUN_END_ROOM, &start);
	if (end_us)
		n += (size_t)snprintf(buf + n, PMI_RUN_END_ROOM, "end exit 0 %llu\n", (unsigned long long)end_us);
	cr_assert_eq(pwrite(fd, buf, n, (off_t)slot * PMI_RUN_BYTES), (ssize_t)n);
	close(fd);
}

Test(sessions, pm_upload_start_loads_the_uploader_for_an_hour_old_session_or_a_full_envelope)
{
	char *dir = pm_test_tmpdir(), path[4096];
	uint64_t now = (uint64_t)time(NULL) * 1000000u;
	put_record(dir, 3, 100, now - 2000000, now - 1000000);
	cr_expect_not(pmi_sessions_waiting(dir), "one fresh session waits for company");
	/* Held by a live run (its lock): not waiting, however old. */
	snprintf(path, sizeof path, "%s/runs", dir);
	int held = open(path, O_RDWR);
	cr_assert_eq(pmi_run_lock(held, 5, F_WRLCK), 0);
	put_record(dir, 5, 101, now - 7200000000u, 0);
	cr_expect_not(pmi_sessions_waiting(dir), "a live run's record counted");
	close(held);
	cr_expect(pmi_sessions_waiting(dir), "a run that began two hours ago and is over");
	pm_test_rmdir(dir);

	dir = pm_test_tmpdir();
	for (unsigned i = 0; i < 99; i++)
		put_record(dir, 10 + 37 * i, 200 + i, now - 2000000, now - 1000000);
	cr_expect_not(pmi_sessions_waiting(dir));
	put_record(dir, 4000, 999, now - 2000000, now - 1000000);
	cr_expect(pmi_sessions_waiting(dir), "an envelope's worth");
	pm_test_rmdir(dir);
}

Test(sessions, the_waiting_and_the_sent_are_held_to_caps)
{
	char *dir = pm_test_tmpdir(), path[4096];
	snprintf(path, sizeof path, "%s/sessions", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	for (int i = 0; i < 1003; i++) {
		pm_session ss = { .pid = 1000 + i, .started_us = 1700000000000000 + i, .ended_us = 1700000000000001 + i,
		                  .status = PM_SESSION_EXITED, .exit_code = 0 };
		snprintf(ss.sid, sizeof ss.sid, "00000000-0000-4000-8000-%012d", i);
		strcpy(ss.app_id, "app");
		strcpy(ss.app_version, "1");
		char *text = pmi_session_to_json(&ss), file[4200];
		snprintf(file, sizeof file, "%s/%s.session", path, ss.sid);
		FILE *f = fopen(file, "w");
		cr_assert(f && text);
		fputs(text, f);
		fclose(f);
		free(text);
	}
	pm_store *s = open_store(dir, false);
	cr_expect_eq(pm_store_session_count(s), 1000u);
	cr_expect_eq(pm_store_session_get(s, 0)->pid, 1003, "the three oldest went");
	pm_store_close(s);
	pm_test_rmdir(dir);
}
