/*
 * test_upload_now.c — a crash reaches its destination without another
 * launch (docs/upload.md, "At the crash"): real programs crash with
 * POSTMORTEM_DSN set, and their crash handler starts postmortem-uploader
 * (reporter/handler/as_upload_now.c), which delivers to a scripted receiver
 * on loopback (http_server.c).  What the dying process's parent sees does
 * not change; the receiver down keeps the report, delivered once later; a
 * storm of crashes starts one uploader; a bad DSN and a missing uploader
 * leave the report on disk; POSTMORTEM_UPLOAD=next-launch starts nothing.
 * tests/delivery/fake_uploader.c stands in for the uploader where the test
 * looks at how it was started.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "envelope_util.h"
#include "http_server.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload_now, .timeout = 120);

/* No child of ours is left behind: the uploader was the crashed process's, not the test's. */
static void
expect_no_child(void)
{
	errno = 0;
	cr_expect_eq(waitpid(-1, NULL, WNOHANG), -1, "the test has a child it did not start");
	cr_expect_eq(errno, ECHILD);
}

static size_t
pending_files(const char *dir)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "ls -A '%s/pending' | grep -v '^\\.' | wc -l", dir) > 0);
	pm_test_run(cmd, &out);
	size_t n = strtoul(out, NULL, 10);
	free(cmd);
	free(out);
	return n;
}

static char *
dsn_env(const http_server *srv)
{
	char *s;
	cr_assert(asprintf(&s, "POSTMORTEM_DSN=http://k3y@127.0.0.1:%u/42", http_server_port(srv)) > 0);
	return s;
}

/* The event ids of every event envelope srv received, lower-case hex, n of them (malloc'd). */
static char **
event_ids(http_server *srv, size_t *n)
{
	size_t total = http_server_count(srv);
	char **ids = calloc(total + 1, sizeof *ids);
	*n = 0;
	for (size_t i = 0; i < total; i++) {
		envelope e;
		envelope_parse(http_server_request(srv, i), &e);
		for (size_t k = 0; k < e.count; k++)
			if (strcmp(str_of(e.items[k].head, "type"), "event") == 0)
				ids[(*n)++] = strdup(str_of(e.head, "event_id"));
		envelope_free(&e);
	}
	return ids;
}

static void
free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* The event id Sentry gets for a report: its incident id without dashes, lower case. */
static void
event_id_of(const pm_report *r, char out[33])
{
	size_t n = 0;
	for (const char *p = r->header.incident_id; p && *p && n < 32; p++)
		if (*p != '-')
			out[n++] = (char)tolower((unsigned char)*p);
	out[n] = '\0';
}

/* Whether an envelope srv received holds a session update. */
static bool
has_session(http_server *srv)
{
	bool found = false;
	for (size_t i = 0; i < http_server_count(srv); i++) {
		envelope e;
		envelope_parse(http_server_request(srv, i), &e);
		for (size_t k = 0; k < e.count; k++)
			found |= strcmp(str_of(e.items[k].head, "type"), "session") == 0;
		envelope_free(&e);
	}
	return found;
}

Test(upload_now, a_crash_reaches_the_receiver_without_another_launch)
{
	/* The first answer waits until the test has read the report (the uploader deletes it once sent). */
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	http_server *srv = http_server_start(script);
	char *dsn = dsn_env(srv);
	const char *env[] = { dsn, "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	crash_run run;
	crash_run_sample(&run, "null_deref", env);
	cr_assert(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV,
	          "the crashed process did not die of its SIGSEGV (status %#x)", run.status);
	expect_no_child();
	cr_assert(http_server_wait(srv, 1, 30000), "no event arrived:\n%s", uploader_log(run.dir));
	http_server_release(srv);
	char *log = uploaders_done(run.dir, 1);
	cr_expect_eq(text_count(log, "]: start"), 1, "%s", log);
	cr_expect(strstr(log, "]: end: sent 1, kept 0"), "%s", log);

	size_t n;
	char **ids = event_ids(srv, &n), want[33];
	event_id_of(&run.json, want);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(ids[0], want, "the event is not the report's");
	cr_expect(has_session(srv), "the run's session did not go with its crash");
	cr_expect_eq(pending_files(run.dir), 0, "the report stays pending after it was delivered");

	/* The same crash with POSTMORTEM_UPLOAD=next-launch: the parent sees the same end. */
	const char *later[] = { dsn, "POSTMORTEM_APP_VERSION=2.5.0", "POSTMORTEM_UPLOAD=next-launch", NULL };
	crash_run before;
	crash_run_sample(&before, "null_deref", later);
	cr_expect_eq(run.status, before.status, "the exit status changed: %#x, %#x without the uploader", run.status,
	             before.status);
	free_ids(ids, n);
	free(log);
	crash_run_free(&before);
	crash_run_free(&run);
	free(dsn);
	http_server_stop(srv);
}

Test(upload_now, under_postmortem_run)
{
	static const http_reply script[] = { { 0 } };
	http_server *srv = http_server_start(script);
	char *dsn = dsn_env(srv);
	putenv(dsn);
	setenv("POSTMORTEM_APP_VERSION", "2.5.0", 1);
	crash_run run;
	char *out;
	crash_run_cli(&run, crash_sample_path("plain_null_deref"), "", &out);
	cr_assert(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 128 + SIGSEGV, "run: %#x\n%s", run.status, out);
	cr_assert(http_server_wait(srv, 1, 30000), "no event arrived:\n%s", uploader_log(run.dir));
	char *log = uploaders_done(run.dir, 1);
	cr_expect(strstr(log, "]: end: sent 1, kept 0"), "%s", log);
	size_t n;
	char **ids = event_ids(srv, &n);
	cr_expect_eq(n, 1);
	cr_expect(has_session(srv), "the run's session (postmortem run's record) did not go");
	cr_expect_eq(pending_files(run.dir), 0);
	free_ids(ids, n);
	free(log);
	free(out);
	crash_run_free(&run);
	http_server_stop(srv);
}

/* pm_config.upload instead of the environment: its URL, both headers, no gzip. */
Test(upload_now, the_destination_given_in_code)
{
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	http_server *srv = http_server_start(script);
	const char *args[] = { http_server_url(srv), NULL };
	crash_run run;
	crash_run_program(&run, pm_test_build("tests/crash_upload_config"), args, NULL);
	cr_assert(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "status %#x", run.status);
	cr_assert(http_server_wait(srv, 1, 30000), "%s", uploader_log(run.dir));
	http_server_release(srv);
	char *log = uploaders_done(run.dir, 1);
	const http_request *r = http_server_request(srv, 0);
	char buf[256];
	cr_expect_str_eq(http_request_header(r, "Authorization", buf, sizeof buf), "Bearer t0ken-in-code");
	cr_expect_str_eq(http_request_header(r, "X-Second", buf, sizeof buf), "2");
	const http_part *report = http_request_part(r, "report");
	cr_assert(report, "no report part");
	cr_expect(!report->gzipped, "no_gzip was not passed on");
	cr_expect(strstr(report->data, run.json.header.incident_id), "another report was sent");
	cr_expect(strstr(log, "]: end: sent 1, kept 0"), "%s", log);
	free(log);
	crash_run_free(&run);
	http_server_stop(srv);
}

/* The crash comes while the process's own upload thread (pm_upload_start, here the preload
 * library's) holds the directory, its request under way: the thread ends with the process, so
 * the handler starts an uploader that waits for the lock, and the new report goes too. */
Test(upload_now, a_crash_while_its_own_upload_thread_delivers)
{
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	char *dir = pm_test_tmpdir();
	http_server *srv = http_server_start(script);
	char *dsn = dsn_env(srv);
	/* A report left by an earlier run, so that the thread has something to send. */
	const char *later[] = { dsn, "POSTMORTEM_UPLOAD=next-launch", NULL };
	int st = crash_wait(crash_spawn(crash_sample_path("null_deref"), NULL, dir, later));
	cr_assert(WIFSIGNALED(st));
	char *preload;
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", pm_test_build("reporter/libpostmortem-preload.so")) > 0);
	const char *env[] = { dsn, preload, NULL };
	const char *args[] = { "60", NULL };
	pid_t pid = crash_spawn("/bin/sleep", args, dir, env);
	cr_assert(http_server_wait(srv, 1, 30000), "the upload thread sent nothing");
	cr_assert(lock_taken(dir), "the thread does not hold the directory");
	kill(pid, SIGSEGV);
	st = crash_wait(pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status %#x", st);
	http_server_release(srv);
	char *log = uploaders_done(dir, 1);
	cr_expect_eq(text_count(log, "]: start"), 1, "%s", log);
	cr_expect(strstr(log, "]: end: sent 2, kept 0"), "both reports go (the first again: its answer was lost):\n%s",
	          log);
	cr_expect_eq(pending_files(dir), 0, "%s", log);
	free(log);
	free(preload);
	free(dsn);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

/* A loopback port nobody listens on. */
static unsigned
closed_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	cr_assert(bind(s, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(s, (struct sockaddr *)&a, &len) == 0);
	close(s);
	return ntohs(a.sin_port);
}

Test(upload_now, receiver_down_keeps_the_report_delivered_once_later)
{
	char *dir = pm_test_tmpdir(), *down;
	cr_assert(asprintf(&down, "POSTMORTEM_DSN=http://k3y@127.0.0.1:%u/42", closed_port()) > 0);
	const char *env_down[] = { down, "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	int st = crash_wait(crash_spawn(crash_sample_path("null_deref"), NULL, dir, env_down));
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	char *log = uploaders_done(dir, 1);
	cr_expect(strstr(log, "cannot reach"), "%s", log);
	cr_expect(strstr(log, "]: end: sent 0, kept 1"), "%s", log);
	cr_assert_eq(pending_files(dir), 3, "the report (text, twin, minidump) is not kept");
	free(log);

	/* The next crash, the receiver up: both go, each once. */
	static const http_reply script[] = { { 0 } };
	http_server *srv = http_server_start(script);
	char *up = dsn_env(srv);
	const char *env_up[] = { up, "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	st = crash_wait(crash_spawn(crash_sample_path("null_deref"), NULL, dir, env_up));
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	cr_assert(http_server_wait(srv, 2, 30000), "%s", uploader_log(dir));
	log = uploaders_done(dir, 2);
	size_t n;
	char **ids = event_ids(srv, &n);
	cr_assert_eq(n, 2, "%s", log);
	cr_expect_str_neq(ids[0], ids[1], "one report was sent twice");
	cr_expect_eq(pending_files(dir), 0);

	/* Nothing is left to send again, by hand. */
	char *out, *args;
	cr_assert(asprintf(&args, "--dsn http://k3y@127.0.0.1:%u/42", http_server_port(srv)) > 0);
	cr_expect_eq(upload_cli(dir, args, &out), 0, "%s", out);
	cr_expect(strstr(out, "sent 0, kept 0"), "%s", out);
	size_t again = 0;
	char **now = event_ids(srv, &again);
	free_ids(now, again);
	cr_expect_eq(again, 2, "a report was sent twice");
	free(args);
	free(out);
	free_ids(ids, n);
	free(log);
	free(up);
	free(down);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

/* A 429 asking for an hour is kept for the next uploader (another process, another crash):
 * it sends that server nothing until then; `postmortem upload` to another server is not held. */
Test(upload_now, a_servers_retry_after_holds_the_next_uploader)
{
	static const http_reply script[] = { { .status = 429, .headers = "Retry-After: 3600\r\n" }, { 0 } };
	http_server *srv = http_server_start(script);
	char *dir = pm_test_tmpdir(), *dsn = dsn_env(srv);
	const char *env[] = { dsn, "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	for (unsigned i = 1; i <= 2; i++) {
		int st = crash_wait(crash_spawn(crash_sample_path("null_deref"), NULL, dir, env));
		cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
		free(uploaders_done(dir, i));
	}
	char *log = uploader_log(dir);
	cr_expect_eq(http_server_count(srv), 1, "the second uploader asked again:\n%s", log);
	cr_expect(strstr(log, "asked to be left alone for 3600 s more: 2 report(s) stay pending until then"), "%s", log);
	cr_expect_eq(pending_files(dir), 6, "%s", log);
	static const http_reply ok[] = { { 0 } };
	http_server *other = http_server_start(ok);
	char *out, *args;
	cr_assert(asprintf(&args, "--dsn http://k3y@127.0.0.1:%u/42", http_server_port(other)) > 0);
	cr_expect_eq(upload_cli(dir, args, &out), 0, "%s", out);
	cr_expect_eq(http_server_count(other), 2, "%s", out);
	free(args);
	free(out);
	free(log);
	free(dsn);
	http_server_stop(other);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

/* `postmortem upload` while a crash's uploader delivers the same directory: it waits for the
 * directory, then finds the report delivered and sends nothing twice. */
Test(upload_now, two_uploaders_at_once_send_each_report_once)
{
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	http_server *srv = http_server_start(script);
	char *dir = pm_test_tmpdir(), *dsn = dsn_env(srv), *out = upload_file(dir, "cli.out"), *cmd;
	const char *env[] = { dsn, "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	int st = crash_wait(crash_spawn(crash_sample_path("null_deref"), NULL, dir, env));
	cr_assert(WIFSIGNALED(st));
	cr_assert(http_server_wait(srv, 1, 30000), "%s", uploader_log(dir));
	cr_assert(asprintf(&cmd, "exec '%s' upload --dir '%s' --dsn '%s' >'%s' 2>&1", pm_test_build("tools/postmortem"), dir,
	                   dsn + strlen("POSTMORTEM_DSN="), out) > 0);
	const char *args[] = { "-c", cmd, NULL };
	pid_t cli = crash_spawn("/bin/sh", args, dir, NULL);
	char *said = NULL;
	for (int i = 0; i < 3000; i++, upload_sleep_ms(10)) {
		free(said);
		said = access(out, F_OK) == 0 ? pm_test_slurp(out, NULL) : strdup("");
		if (strstr(said, "waiting for it"))
			break;
	}
	cr_assert(strstr(said, "another uploader is delivering this directory's reports: waiting for it"), "%s", said);
	http_server_release(srv);
	st = crash_wait(cli);
	free(said);
	said = pm_test_slurp(out, NULL);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", said);
	cr_expect(strstr(said, "sent 0, kept 0, quarantined 0"), "%s", said);
	free(uploaders_done(dir, 1));
	size_t n;
	char **ids = event_ids(srv, &n);
	cr_expect_eq(n, 1, "the report was sent %zu times", n);
	free_ids(ids, n);
	free(said);
	free(cmd);
	free(out);
	free(dsn);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

enum { STORM = 20 };

/* A crash, its uploader's first request held, then 19 crashes at once: none of them starts an
 * uploader (the directory is taken), and the one running, whose pass listed the first report
 * alone, finds theirs once its pass is done.  Twenty crashes of one site: storm control, which
 * would send seven of them (docs/store.md), keeps them all here. */
Test(upload_now, twenty_crashes_at_once_start_one_uploader)
{
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	http_server *srv = http_server_start(script);
	char *dir = pm_test_tmpdir(), *dsn = dsn_env(srv);
	const char *env[] = { dsn, "POSTMORTEM_APP_VERSION=2.5.0", "POSTMORTEM_STORM_KEEP=100,100", NULL };
	pid_t pids[STORM];
	pids[0] = crash_spawn(crash_sample_path("null_deref"), NULL, dir, env);
	cr_assert(http_server_wait(srv, 1, 30000), "%s", uploader_log(dir));
	for (int i = 1; i < STORM; i++)
		pids[i] = crash_spawn(crash_sample_path("null_deref"), NULL, dir, env);
	for (int i = 0; i < STORM; i++) {
		int st = crash_wait(pids[i]);
		cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "crash %d: status %#x", i, st);
	}
	expect_no_child();
	http_server_release(srv);
	char *log = uploaders_done(dir, 1);
	cr_expect_eq(text_count(log, "]: start"), 1, "more than one uploader for one storm:\n%s", log);
	size_t n;
	char **ids = event_ids(srv, &n);
	cr_expect_eq(n, STORM, "%zu events for %d crashes:\n%s", n, STORM, log);
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			cr_expect_str_neq(ids[i], ids[k], "report %s was sent twice", ids[i]);
	cr_expect_eq(pending_files(dir), 0, "%s", log);
	free_ids(ids, n);
	free(log);
	free(dsn);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}

Test(upload_now, a_bad_dsn_is_one_clear_line_and_the_report_stays)
{
	static const char *const env[] = { "POSTMORTEM_DSN=https://sentry.example.com/no-key", NULL };
	crash_run run;
	crash_run_sample(&run, "null_deref", env);
	cr_assert(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV);
	char *log = uploaders_done(run.dir, 1);
	cr_expect(strstr(log, "postmortem: upload: the DSN is not {scheme}://{key}@{host}[:port]/{project id}\n"), "%s", log);
	cr_expect(strstr(log, "]: end: the destination, or a header, was refused"), "%s", log);
	cr_expect_eq(pending_files(run.dir), 3, "the report was not kept:\n%s", log);
	cr_expect(run.json.complete);
	free(log);
	crash_run_free(&run);
}

/* The report is on disk as before when the uploader cannot start: path, a program that is not one. */
static void
crash_without_uploader(const char *path)
{
	char *forced;
	cr_assert(asprintf(&forced, "POSTMORTEM_UPLOADER=%s", path) > 0);
	const char *env[] = { forced, "POSTMORTEM_DSN=http://k3y@127.0.0.1:9/42", NULL };
	crash_run run;
	crash_run_sample(&run, "null_deref", env);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "status %#x", run.status);
	cr_expect(run.json.complete, "the report was not completed");
	char *dmp = crash_dmp_path(&run);
	cr_expect(access(dmp, R_OK) == 0, "no minidump");
	cr_expect_eq(pending_files(run.dir), 3);
	/* The child that could not exec ends, and its lock with it; it was the crashed process's. */
	expect_no_child();
	for (int i = 0; i < 3000 && lock_taken(run.dir); i++)
		upload_sleep_ms(10);
	cr_expect(!lock_taken(run.dir), "the upload lock outlived a start that failed");
	char *log = uploader_log(run.dir);
	cr_expect_str_empty(log, "something ran: %s", log);
	free(log);
	free(dmp);
	crash_run_free(&run);
	free(forced);
}

Test(upload_now, a_missing_uploader_leaves_the_report_on_disk)
{
	crash_without_uploader("/nonexistent/postmortem-uploader");
}

Test(upload_now, an_uploader_that_is_not_executable_leaves_the_report_on_disk)
{
	char *dir = pm_test_tmpdir(), *path = upload_file(dir, "postmortem-uploader");
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "cp '%s' '%s' && chmod 0644 '%s'", pm_test_build("delivery/uploader/postmortem-uploader"),
	                   path, path) > 0);
	cr_assert_eq(pm_test_run(cmd, &out), 0, "%s", out);
	crash_without_uploader(path);
	free(out);
	free(cmd);
	free(path);
	pm_test_rmdir(dir);
}

Test(upload_now, next_launch_keeps_todays_behaviour)
{
	static const http_reply script[] = { { 0 } };
	http_server *srv = http_server_start(script);
	char *dsn = dsn_env(srv);
	const char *env[] = { dsn, "POSTMORTEM_UPLOAD=next-launch", NULL };
	crash_run run;
	crash_run_sample(&run, "null_deref", env);
	cr_assert(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV);
	/* The handler takes the upload lock before it starts anything: it never tried. */
	char *lock = upload_file(run.dir, "upload.lock");
	cr_expect(access(lock, F_OK) != 0, "the crash handler tried to start an uploader");
	cr_expect_eq(http_server_count(srv), 0);
	cr_expect_eq(pending_files(run.dir), 3);
	/* The next launch (here `postmortem upload`) sends it. */
	char *out, *args;
	cr_assert(asprintf(&args, "--dsn %s", dsn + strlen("POSTMORTEM_DSN=")) > 0);
	cr_expect_eq(upload_cli(run.dir, args, &out), 0, "%s", out);
	cr_expect_eq(http_server_count(srv), 1);
	free(args);
	free(out);
	free(lock);
	crash_run_free(&run);
	free(dsn);
	http_server_stop(srv);
}

/* The line of text starting with key (up to its newline), or NULL (static storage). */
static const char *
line_of(const char *text, const char *key)
{
	static char line[4096];
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, strlen(key)) == 0) {
			size_t n = strcspn(p, "\n");
			snprintf(line, sizeof line, "%.*s", (int)n, p);
			return line;
		}
	return NULL;
}

/* program crashed in an environment of its own (env: more of it, shell words) with the fake
 * uploader as its uploader, through a shell whose output the test reads to its end (an
 * uploader that kept the crashed process's streams would hold it, and the test, as long as
 * it lives): what the fake uploader wrote of how it was started. */
static char *
crash_with_fake(const char *dir, const char *fake, const char *env, const char *program)
{
	char *cmd, *out;
	const char *ld = getenv("LD_LIBRARY_PATH");
	cr_assert(asprintf(&cmd,
	                   "env -i LD_LIBRARY_PATH='%s' POSTMORTEM_DIR='%s' POSTMORTEM_UPLOADER='%s' "
	                   "POSTMORTEM_DSN=http://k3y@127.0.0.1:9/42 %s '%s'; echo \"status $?\"",
	                   ld ? ld : "", dir, fake, env, program) > 0);
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st), "%s", out);
	cr_expect(strstr(out, "status 139"), "the crash did not end as a SIGSEGV: %s", out);
	char *record = upload_file(dir, "fake-uploader.txt");
	for (int i = 0; i < 3000 && access(record, F_OK) != 0; i++)
		upload_sleep_ms(10);
	char *text = pm_test_slurp(record, NULL);
	cr_assert_not_null(text, "no uploader was started");
	free(record);
	free(out);
	free(cmd);
	return text;
}

Test(upload_now, the_uploader_starts_detached_and_the_crash_does_not_wait_for_it)
{
	char *dir = pm_test_tmpdir(), *hang = upload_file(dir, "fake-uploader.hang");
	char *fake = strdup(pm_test_build("tests/fake_uploader"));
	close(open(hang, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	char *text = crash_with_fake(dir, fake, "https_proxy=http://proxy.invalid:3128 PM_TEST_SECRET=do-not-pass",
	                             crash_sample_path("null_deref"));
	long pid = strtol(line_of(text, "pid ") + 4, NULL, 10);
	cr_assert_gt(pid, 1, "%s", text);

	/* argv: the directory, the crashed pid, the lock's descriptor. */
	const char *argv = line_of(text, "argv ");
	char want[8192];
	snprintf(want, sizeof want, "argv %s --dir %s --crashed ", fake, dir);
	cr_expect(strncmp(argv, want, strlen(want)) == 0, "%s", argv);
	cr_expect(strstr(argv, " --lock-fd 3") && !strstr(argv, "--waited"), "%s", argv);
	/* A session and a process group of its own, every signal blocked until it unblocks them. */
	char sid[64];
	snprintf(sid, sizeof sid, "sid %ld", pid);
	cr_expect(line_of(text, sid), "not in a session of its own:\n%s", text);
	cr_expect(line_of(text, "sigsegv_blocked 1"), "%s", text);
	/* Its streams on /dev/null, the lock on 3, nothing else of the crashed process's. */
	cr_expect(line_of(text, "fd 0 /dev/null") && line_of(text, "fd 1 /dev/null") && line_of(text, "fd 2 /dev/null"),
	          "%s", text);
	char lock[4200];
	snprintf(lock, sizeof lock, "fd 3 %s/upload.lock", dir);
	cr_expect(line_of(text, lock), "%s", text);
	cr_expect_eq(text_count(text, "\nfd "), 4, "descriptors it should not have:\n%s", text);
	/* The environment pm_install prepared: the destination and curl's, no other. */
	cr_expect(line_of(text, "env POSTMORTEM_DSN=http://k3y@127.0.0.1:9/42"), "%s", text);
	cr_expect(line_of(text, "env https_proxy=http://proxy.invalid:3128"), "%s", text);
	cr_expect(!strstr(text, "PM_TEST_SECRET") && !strstr(text, "POSTMORTEM_DIR") && !strstr(text, "LD_PRELOAD"), "%s",
	          text);
	/* It still runs, the lock its own, after the crashed process ended. */
	cr_expect(kill((pid_t)pid, 0) == 0, "the uploader did not outlive the crashed process");
	cr_expect(lock_taken(dir), "the uploader does not hold the directory");
	expect_no_child();
	kill((pid_t)pid, SIGKILL);
	for (int i = 0; i < 3000 && lock_taken(dir); i++)
		upload_sleep_ms(10);
	free(text);
	free(fake);
	free(hang);
	pm_test_rmdir(dir);
}

/* The uploader's exec waits for the crashed process's end: beside the teardown of a dying
 * process, an exec and a program's loading made its death slower (docs/benchmarks.md).  The
 * app's crash callback, which runs after the start, keeps the process alive 300 ms. */
Test(upload_now, the_uploader_starts_once_the_crashed_process_has_ended)
{
	char *dir = pm_test_tmpdir();
	char *fake = strdup(pm_test_build("tests/fake_uploader"));
	char *text = crash_with_fake(dir, fake, "MARKER=/dev/null CALLBACK_SLEEP_MS=300",
	                             pm_test_build("tests/crash_phases"));
	cr_expect(line_of(text, "crashed_ended 1"), "the uploader started while the crashed process still ran:\n%s", text);
	free(text);
	free(fake);
	pm_test_rmdir(dir);
}

/* A process that is its pid namespace's init (a container's only process) takes every
 * process of it along when it dies: it waits for its uploader. */
Test(upload_now, the_init_of_a_pid_namespace_waits_for_its_uploader)
{
	char *out;
	if (pm_test_run("unshare --pid --fork --mount-proc true", &out) != 0) {
		free(out);
		cr_skip_test("no pid namespace here (unshare needs CAP_SYS_ADMIN)");
	}
	free(out);
	static const http_reply script[] = { { 0 } };
	http_server *srv = http_server_start(script);
	char *dir = pm_test_tmpdir(), *cmd;
	const char *ld = getenv("LD_LIBRARY_PATH");
	cr_assert(asprintf(&cmd,
	                   "env -i LD_LIBRARY_PATH='%s' POSTMORTEM_DIR='%s' POSTMORTEM_APP_VERSION=2.5.0 "
	                   "POSTMORTEM_DSN=http://k3y@127.0.0.1:%u/42 unshare --pid --fork --mount-proc '%s'",
	                   ld ? ld : "", dir, http_server_port(srv), crash_sample_path("null_deref")) > 0);
	pm_test_run(cmd, &out);
	char *log = uploaders_done(dir, 1);
	cr_expect(strstr(log, "(which waits for this uploader)"), "%s", log);
	cr_expect(strstr(log, "]: end: sent 1, kept 0"), "%s\n%s", log, out);
	cr_expect_eq(http_server_count(srv), 1);
	free(log);
	free(out);
	free(cmd);
	http_server_stop(srv);
	pm_test_rmdir(dir);
}
