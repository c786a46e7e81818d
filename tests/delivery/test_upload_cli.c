/*
 * test_upload_cli.c — `postmortem upload` against the loopback server.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "http_server.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload_cli, .timeout = 120);

Test(upload_cli, delivers_and_exits_0)
{
	static const http_reply script[] = { { .status = 200 }, { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(2, 0), *out, args[512];
	http_server *srv = http_server_start(script);
	snprintf(args, sizeof args, "--url %s -H 'X-Project: demo' --no-gzip", http_server_url(srv));
	cr_assert_eq(upload_cli(dir, args, &out), 0, "%s", out);
	cr_expect(strstr(out, "sent 2, kept 0, quarantined 0") != NULL, "%s", out);
	cr_assert_eq(http_server_count(srv), 2);
	char v[64];
	const http_request *r = http_server_request(srv, 0);
	cr_expect_str_eq(http_request_header(r, "X-Project", v, sizeof v), "demo");
	cr_expect_str_eq(http_request_part(r, "report")->type, "application/json");
	free(out);
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload_cli, kept_or_quarantined_exits_1)
{
	static const http_reply script[] = {
		{ .status = 413, .body = "too big" }, { .status = 503 }, { .status = 503 }, { 0 },
	};
	char *dir = upload_make_reports(2, 0), *out, args[512];
	http_server *srv = http_server_start(script);
	snprintf(args, sizeof args, "--url %s --attempts 2", http_server_url(srv));
	cr_assert_eq(upload_cli(dir, args, &out), 1, "%s", out);
	cr_expect(strstr(out, "sent 0, kept 1, quarantined 1") != NULL, "%s", out);
	cr_expect(strstr(out, "postmortem: upload: report-0000: rejected (HTTP 413)") != NULL, "%s", out);
	free(out);
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload_cli, bad_usage_exits_2)
{
	static const char *const cases[] = {
		"",
		"--url http://crash.example/upload",
		"--url https://crash.example/upload --attempts 0",
		"--url https://crash.example/upload --timeout-ms soon",
		"--url https://crash.example/upload -H 'no colon'",
		"--url https://crash.example/upload extra",
		"--url https://crash.example/upload --bogus",
	};
	char *dir = upload_make_reports(1, 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out;
		cr_expect_eq(upload_cli(dir, cases[i], &out), 2, "'%s': %s", cases[i], out);
		free(out);
	}
	cr_assert(upload_exists(upload_path(dir, "pending", upload_id(0), ".json")));
	upload_remove(dir);
}

Test(upload_cli, help_exits_0)
{
	char *out;
	cr_assert_eq(upload_cli("/nonexistent", "--help", &out), 0);
	cr_expect(strstr(out, "--allow-http") != NULL, "%s", out);
	free(out);
}

/* On a terminal (script(1) gives it one) each report moves a progress line on; the one-line
 * summary comes whatever stdout is. */
Test(upload_cli, progress_on_a_terminal_and_a_summary_always)
{
	static const http_reply script[] = { { .status = 200 }, { .status = 200 }, { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(3, 0), *out, *cmd;
	http_server *srv = http_server_start(script);
	cr_assert(asprintf(&cmd, "script -qec \"'%s' upload --dir '%s' --url %s --no-gzip\" /dev/null",
	                   pm_test_build("tools/postmortem"), dir, http_server_url(srv)) > 0);
	int st = pm_test_run(cmd, &out);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
	for (int i = 1; i <= 3; i++) {
		char want[64];
		snprintf(want, sizeof want, "postmortem upload: %d of 3 reports, ", i);
		cr_expect(strstr(out, want), "no '%s' on the terminal:\n%s", want, out);
	}
	cr_expect(strstr(out, "sent 3, kept 0, quarantined 0 (of 3 pending reports, "), "%s", out);
	free(out);
	free(cmd);
	http_server_stop(srv);
	upload_remove(dir);

	srv = http_server_start(script);
	dir = upload_make_reports(3, 0);
	char args[512];
	snprintf(args, sizeof args, "--url %s --no-gzip", http_server_url(srv));
	cr_expect_eq(upload_cli(dir, args, &out), 0, "%s", out);
	cr_expect(!strstr(out, "of 3 reports, "), "progress off a terminal:\n%s", out);
	cr_expect(strstr(out, "sent 3, kept 0, quarantined 0 (of 3 pending reports, "), "%s", out);
	free(out);
	http_server_stop(srv);
	upload_remove(dir);
}
