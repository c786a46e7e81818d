/*
 * test_cli_store.c — `postmortem list`, `show` and `run` end to end, on
 * real crashes of a program that was never linked with postmortem.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "crash/crash_util.h"
#include "fixture_report.h"
#include "store_util.h"
#include "util.h"

/* Run the CLI through the shell; returns its exit status, output in *out. */
static int
cli(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
cli(char **out, const char *fmt, ...)
{
	char *args, *cmd;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&args, fmt, ap) > 0);
	va_end(ap);
	cr_assert(asprintf(&cmd, "'%s' %s", pm_test_build("tools/postmortem"), args) > 0);
	int st = pm_test_run(cmd, out);
	free(cmd);
	free(args);
	cr_assert(WIFEXITED(st), "the shell did not exit");
	return WEXITSTATUS(st);
}

/* Crash the plain sample under `postmortem run`; returns its id (malloc'd). */
static char *
run_plain(const char *dir)
{
	char *out;
	int rc = cli(&out, "run --dir '%s' -- '%s' 2>&1", dir, crash_sample_path("plain_null_deref"));
	cr_expect_eq(rc, 128 + SIGSEGV, "postmortem run returned %d:\n%s", rc, out);
	cr_expect(strstr(out, "was killed by SIGSEGV"), "%s", out);
	cr_expect(strstr(out, "postmortem run: report "), "%s", out);
	cr_expect(strstr(out, "plain_crash_here"), "the explanation names the crashing function:\n%s", out);
	cr_expect(strstr(out, "NULL pointer"), "%s", out);
	free(out);
	pm_store *s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 1, "no report left in %s", dir);
	const pm_store_entry *e = pm_store_get(s, PM_STATE_PENDING, 0);
	cr_expect_str_eq(e->app, "crash_plain_null_deref");
	char *id = strdup(e->id);
	pm_store_close(s);
	return id;
}

Test(cli_store, run_reports_an_unmodified_program, .timeout = 120)
{
	char *dir = pm_test_tmpdir();
	char *id = run_plain(dir);
	char *out;
	/* The program's own exit code comes back, and no report is looked for. */
	cr_expect_eq(cli(&out, "run --dir '%s' -- /bin/sh -c 'exit 7'", dir), 7, "%s", out);
	cr_expect_str_eq(out, "");
	free(out);
	cr_expect_eq(cli(&out, "run --dir '%s' -- /no/such/program", dir), 127);
	cr_expect(strstr(out, "cannot run /no/such/program"), "%s", out);
	free(out);
	/* A signal postmortem cannot catch: the status still comes back, with no report. */
	cr_expect_eq(cli(&out, "run --dir '%s' -- /bin/sh -c 'kill -9 $$'", dir), 128 + SIGKILL, "%s", out);
	cr_expect(strstr(out, "no report: SIGKILL ends a process before any handler can run"), "%s", out);
	free(out);
	free(id);
	su_rm(dir);
	free(dir);
}

Test(cli_store, list_and_show, .timeout = 120)
{
	char *dir = pm_test_tmpdir();
	char *id = run_plain(dir);
	char *out;
	cr_expect_eq(cli(&out, "list --dir '%s'", dir), 0);
	cr_expect(strstr(out, id) && strstr(out, "crash_plain_null_deref") && strstr(out, "EXC_BAD_ACCESS (SIGSEGV)") &&
	          strstr(out, "pending"), "%s", out);
	free(out);

	cr_expect_eq(cli(&out, "list --json --dir '%s'", dir), 0);
	cJSON *a = cJSON_Parse(out);
	cr_assert(cJSON_IsArray(a) && cJSON_GetArraySize(a) == 1, "%s", out);
	cJSON *e = cJSON_GetArrayItem(a, 0);
	cr_expect_str_eq(cJSON_GetObjectItem(e, "id")->valuestring, id);
	cr_expect_str_eq(cJSON_GetObjectItem(e, "state")->valuestring, "pending");
	cr_expect_str_eq(cJSON_GetObjectItem(e, "app")->valuestring, "crash_plain_null_deref");
	cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(e, "time")));
	cJSON_Delete(a);
	free(out);

	char name[128];
	snprintf(name, sizeof name, "%s.crash", id);
	char *crash = pm_test_slurp(su_path(dir, "pending", name), NULL);
	cr_expect_eq(cli(&out, "show '%s' --dir '%s'", id, dir), 0);
	cr_expect_str_eq(out, crash);
	free(out);
	free(crash);
	snprintf(name, sizeof name, "%s.json", id);
	char *json = pm_test_slurp(su_path(dir, "pending", name), NULL);
	cr_expect_eq(cli(&out, "show --json '%s' --dir '%s'", id, dir), 0);
	cr_expect_str_eq(out, json);
	free(out);
	free(json);

	/* Once torn (its twin gone for two minutes), it shows as partial, with a note. */
	unlink(su_path(dir, "pending", name));
	snprintf(name, sizeof name, "%s.crash", id);
	su_age(su_path(dir, "pending", name), 120);
	cr_expect_eq(cli(&out, "show '%s' --dir '%s' 2>&1 >/dev/null", id, dir), 0);
	cr_expect(strstr(out, "partial"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "list --dir '%s'", dir), 0);
	cr_expect(strstr(out, "partial"), "%s", out);
	free(out);
	free(id);
	su_rm(dir);
	free(dir);
}

Test(cli_store, errors_and_help)
{
	char *dir = pm_test_tmpdir();
	char *out;
	cr_expect_eq(cli(&out, "show NOPE --dir '%s'", dir), 1);
	cr_expect(strstr(out, "no report id beginning NOPE"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "list --dir '%s/missing'", dir), 1);
	cr_expect(strstr(out, "no reports directory at"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "show ID --dir '%s/missing'", dir), 1);
	free(out);
	static const char *const bad[] = { "list --bogus", "list extra", "show", "show a b", "show --json",
	                                   "run", "run --bogus -- true", "run --dir" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_expect_eq(cli(&out, "%s", bad[i]), 2, "'%s'", bad[i]);
		cr_expect(strstr(out, "usage: postmortem"), "'%s': %s", bad[i], out);
		free(out);
	}
	static const char *const help[] = { "list --help", "show --help", "run --help" };
	for (size_t i = 0; i < sizeof help / sizeof help[0]; i++) {
		cr_expect_eq(cli(&out, "%s", help[i]), 0, "'%s'", help[i]);
		cr_expect(strstr(out, "Exit status"), "'%s': %s", help[i], out);
		free(out);
	}
	cr_expect_eq(cli(&out, "--help"), 0);
	cr_expect(strstr(out, "list") && strstr(out, "show") && strstr(out, "run"), "%s", out);
	free(out);
	su_rm(dir);
	free(dir);
}

/* Every command that takes a report takes a file, an id or a unique prefix of one. */
Test(cli_store, reports_by_id_or_prefix, .timeout = 120)
{
	pm_report model;
	su_real_report(&model, NULL, NULL, NULL, NULL);
	char *dir = su_reports_dir(), *out;
	int64_t now = (int64_t)time(NULL);
	su_put(dir, &model, "aaaa1111-0000", "app_old", now - 300, now - 310, 101, true, true);
	su_put(dir, &model, "aaaa2222-0000", "app_mid", now - 200, now - 210, 102, true, true);
	/* The newest faulted elsewhere, so that explaining it differs from explaining the others. */
	model.exception.address = 0x5eed;
	su_put(dir, &model, "bbbb3333-0000", "app_new", now - 100, now - 110, 103, true, true);
	pm_report_free(&model);

	cr_expect_eq(cli(&out, "show aaaa1 --dir '%s'", dir), 0, "%s", out);
	cr_expect(strstr(out, "app_old") && !strstr(out, "app_mid"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "show aaaa --dir '%s'", dir), 1);
	cr_expect(strstr(out, "aaaa is ambiguous") && strstr(out, "aaaa1111-0000") && strstr(out, "aaaa2222-0000") &&
	          !strstr(out, "bbbb3333-0000"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "explain zzz --dir '%s'", dir), 1);
	cr_expect(strstr(out, "no file zzz and no report id beginning zzz in") && strstr(out, "from --dir"), "%s", out);
	free(out);

	/* convert and symbolicate find ids where pm_install puts reports. */
	cr_assert_eq(setenv("POSTMORTEM_DIR", dir, 1), 0);
	cr_expect_eq(cli(&out, "convert aaaa2 --to json"), 0, "%s", out);
	cr_expect(strstr(out, "app_mid"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "symbolicate bbbb --to json 2>/dev/null"), 0, "%s", out);
	cr_expect(strstr(out, "app_new"), "%s", out);
	free(out);
	unsetenv("POSTMORTEM_DIR");

	/* explain with no report: the newest pending one, the same as naming its file. */
	char *newest, *named;
	cr_expect_eq(cli(&newest, "explain --json --dir '%s'", dir), 0, "%s", newest);
	cr_expect_eq(cli(&named, "explain --json '%s'", su_path(dir, "pending", "bbbb3333-0000.json")), 0, "%s", named);
	cr_expect_str_eq(newest, named);
	cr_expect(strstr(newest, "\"address\":\t24301"), "%s", newest);
	free(newest);
	free(named);
	su_rm(dir);
	dir = su_reports_dir();
	cr_expect_eq(cli(&out, "explain --dir '%s'", dir), 1);
	cr_expect(strstr(out, "no pending report in"), "%s", out);
	free(out);
	su_rm(dir);
	free(dir);
}

/* "ls -lR"-style listing of a tree: names, sizes and times, to see that nothing changed. */
static char *
tree(const char *dir)
{
	char *out;
	char *cmd;
	cr_assert(asprintf(&cmd, "cd '%s' && find . -printf '%%p %%s %%T@\\n' | sort", dir) > 0);
	pm_test_run(cmd, &out);
	free(cmd);
	return out;
}

Test(cli_store, reading_commands_never_write, .timeout = 120)
{
	char *dir = pm_test_tmpdir(), *out, *before, *after;
	/* An existing, empty reports directory stays empty. */
	cr_expect_eq(cli(&out, "list --dir '%s'", dir), 0, "%s", out);
	free(out);
	after = tree(dir);
	cr_expect(strncmp(after, ". ", 2) == 0 && strchr(after, '\n') == after + strlen(after) - 1,
	          "list wrote into the directory:\n%s", after);
	free(after);
	su_rm(dir);
	free(dir);

	/* A torn report (its twin gone for two minutes) and a stale temporary: listed, left as they are. */
	pm_report model;
	su_real_report(&model, NULL, NULL, NULL, NULL);
	dir = su_reports_dir();
	int64_t now = (int64_t)time(NULL);
	su_put(dir, &model, "torn-0001", "app_torn", now - 300, now - 310, 201, true, false);
	su_age(su_path(dir, "pending", "torn-0001.crash"), 120);
	su_put(dir, &model, "whole-0002", "app_whole", now - 200, now - 210, 202, true, true);
	su_write(su_path(dir, "pending", ".whole-0002.json.tmp"), "{", 1);
	su_age(su_path(dir, "pending", ".whole-0002.json.tmp"), 3600);
	pm_report_free(&model);
	before = tree(dir);
	cr_expect_eq(cli(&out, "list --dir '%s'", dir), 0, "%s", out);
	cr_expect(strstr(out, "torn-0001") && strstr(out, "partial: torn") && strstr(out, "whole-0002"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "show torn --dir '%s' 2>&1", dir), 0, "%s", out);
	cr_expect(strstr(out, "note: torn-0001 is partial"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "explain whole --dir '%s'", dir), 0, "%s", out);
	free(out);
	after = tree(dir);
	cr_expect_str_eq(after, before, "the reports directory changed");
	free(before);
	free(after);
	su_rm(dir);

	/* A missing directory: the message says where the place came from. */
	cr_assert_eq(setenv("POSTMORTEM_DIR", su_path(dir, "missing", "x"), 1), 0);
	cr_expect_eq(cli(&out, "list"), 1);
	cr_expect(strstr(out, "no reports directory at") && strstr(out, "(from $POSTMORTEM_DIR)") &&
	          !strstr(out, "default place"), "%s", out);
	free(out);
	unsetenv("POSTMORTEM_DIR");
	free(dir);
}

/* A grandchild's crash is told too, and --json sums the run up for scripts. */
Test(cli_store, run_tells_of_every_crash_under_it, .timeout = 120)
{
	char *dir = pm_test_tmpdir(), *out, *err_path;
	cr_assert(asprintf(&err_path, "%s/err", dir) > 0);
	/* sh forks the program (it has more to do after it), and itself exits 0. */
	int rc = cli(&out, "run --json --dir '%s/reports' -- /bin/sh -c \"'%s'; echo after\" 2>'%s'", dir,
	             crash_sample_path("plain_null_deref"), err_path);
	cr_expect_eq(rc, 0, "%s", out);
	char *err = pm_test_slurp(err_path, NULL);
	cr_expect(strstr(err, "postmortem run: report ") && strstr(err, "crash_plain_null_deref") &&
	          strstr(err, "NULL pointer"), "%s", err);
	cr_expect(!strstr(err, "/bin/sh was killed"), "sh itself was not killed:\n%s", err);
	char *last = strstr(out, "after\n");
	cr_assert(last, "%s", out);
	cJSON *o = cJSON_Parse(last + strlen("after\n"));
	cr_assert(o, "no JSON summary after the program's output:\n%s", out);
	cr_expect_eq(cJSON_GetObjectItem(o, "exit_status")->valueint, 0);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(o, "signal")));
	cJSON *reports = cJSON_GetObjectItem(o, "reports");
	cr_assert(cJSON_IsArray(reports) && cJSON_GetArraySize(reports) == 1, "%s", out);
	cJSON *r = cJSON_GetArrayItem(reports, 0);
	cr_expect_str_eq(cJSON_GetObjectItem(r, "app")->valuestring, "crash_plain_null_deref");
	cr_expect_str_eq(cJSON_GetObjectItem(r, "state")->valuestring, "pending");
	cr_expect(cJSON_GetObjectItem(r, "pid")->valuedouble > 0);
	cr_expect(strstr(cJSON_GetObjectItem(r, "path")->valuestring, "/reports/pending/"), "%s", out);
	cJSON_Delete(o);
	free(out);
	free(err);

	/* The report from before is not told again; a clean run says nothing. */
	cr_expect_eq(cli(&out, "run --json --dir '%s/reports' -- /bin/true 2>&1", dir), 0);
	cr_expect_str_eq(out, "{\"exit_status\":0,\"signal\":null,\"reports\":[]}\n");
	free(out);
	/* A killed direct child: the signal, its status, and its report. */
	cr_expect_eq(cli(&out, "run --json --dir '%s/reports' -- '%s' 2>/dev/null", dir,
	                 crash_sample_path("plain_null_deref")), 128 + SIGSEGV);
	o = cJSON_Parse(strstr(out, "\n{") ? strstr(out, "\n{") + 1 : out);
	cr_assert(o, "no JSON summary as the last line:\n%s", out);
	cr_expect_str_eq(cJSON_GetObjectItem(o, "signal")->valuestring, "SIGSEGV");
	cr_expect_eq(cJSON_GetObjectItem(o, "exit_status")->valueint, 128 + SIGSEGV);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "reports")), 1, "%s", out);
	cJSON_Delete(o);
	free(out);
	free(err_path);
	su_rm(dir);
	free(dir);
}

/* How many entries (or groups) `list ARGS --json` prints; -1 when it fails. */
static int
listed(const char *dir, const char *args)
{
	char *out;
	if (cli(&out, "list --json --dir '%s' %s", dir, args) != 0) {
		cr_log_info("list %s: %s", args, out);
		free(out);
		return -1;
	}
	cJSON *a = cJSON_Parse(out);
	cr_assert(cJSON_IsArray(a), "%s", out);
	int n = cJSON_GetArraySize(a);
	cJSON_Delete(a);
	free(out);
	return n;
}

/* --since and --until in every form journalctl takes, --app, with and without --group. */
Test(cli_store, list_in_a_window, .timeout = 120)
{
	char *dir = su_reports_dir();
	pm_report model;
	pm_report_init(&model);
	pm_fixture_linux_crash(&model);
	int64_t now = (int64_t)time(NULL);
	static const struct {
		const char *id, *app;
		int64_t ago;
	} reports[] = {
		{ "A-10min", "app", 600 }, { "B-90min", "app", 5400 }, { "C-20h", "app", 72000 },
		{ "D-3d", "other", 3 * 86400 },
	};
	for (size_t i = 0; i < 4; i++)
		su_put(dir, &model, reports[i].id, reports[i].app, now - reports[i].ago, now - reports[i].ago - 1,
		       100 + (int64_t)i, true, true);
	char at[64], minute[64], second[64], day[64];
	time_t t = (time_t)(now - 100 * 60), d3 = (time_t)(now - 3 * 86400);
	struct tm tm;
	snprintf(at, sizeof at, "--since @%lld", (long long)t);
	strftime(minute, sizeof minute, "--since '%Y-%m-%d %H:%M'", localtime_r(&t, &tm));
	strftime(second, sizeof second, "--since '%Y-%m-%d %H:%M:%S'", localtime_r(&t, &tm));
	strftime(day, sizeof day, "--since %Y-%m-%d", localtime_r(&d3, &tm));
	const struct {
		const char *args;
		int want;
	} cases[] = {
		{ "", 4 }, { "--since -30min", 1 }, { "--since -2h", 2 }, { "--since -1d", 3 }, { "--until -1d", 1 },
		{ "--since -1d --until -1h", 2 }, { at, 2 }, { minute, 2 }, { second, 2 }, { day, 4 },
		{ "--since now", 0 }, { "--until @1", 0 }, { "--app other", 1 }, { "--app app --since -2h", 2 },
		{ "--group", 1 }, { "--group --since -30min", 1 }, { "--group --since +1h", 0 },
		{ "--group --app nobody", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect_eq(listed(dir, cases[i].args), cases[i].want, "list %s", cases[i].args);
	/* The group counts what the window holds. */
	char *out;
	cr_assert_eq(cli(&out, "list --group --json --since -2h --dir '%s'", dir), 0);
	cr_expect(strstr(out, "\"count\":\t2") != NULL, "%s", out);
	free(out);
	cr_assert_eq(cli(&out, "list --group --dir '%s'", dir), 0);
	cr_expect(strstr(out, "SIGNATURE") && strstr(out, "SIGSEGV in crash_here") && strstr(out, "D-3d") == NULL &&
	                  strstr(out, "A-10min") != NULL,
	          "one line, the newest report named:\n%s", out);
	free(out);
	/* Forms it does not take: said, and bad usage. */
	static const char *const bad[] = {
		"--since yesterdayish", "--since 2024-13-01", "--since 2024-02-30", "--since '2024-01-01 25:00'",
		"--since -5parsecs", "--since @12x", "--since ''", "--until 2024-1-1", "--since -1d --until -2d",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_expect_eq(cli(&out, "list --dir '%s' %s 2>&1", dir, bad[i]), 2, "list %s", bad[i]);
		cr_expect(strstr(out, "is not a time") || strstr(out, "after --until"), "list %s: %s", bad[i], out);
		free(out);
	}
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}
