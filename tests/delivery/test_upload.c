/*
 * test_upload.c — pm_upload_pending against a real HTTP server on loopback.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "connect_count.h"
#include "fixture_report.h"
#include "http_server.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload, .timeout = 120);

/* One pass over dir's store. */
static pm_upload_result
pass(const char *dir, const pm_upload_options *opt, pm_err want)
{
	pm_store *s = upload_store(dir);
	pm_upload_result res;
	cr_assert_eq(pm_upload_pending(s, opt, &res), want);
	pm_store_close(s);
	return res;
}

static char *
slurp_pending(const char *dir, const char *id, const char *ext, size_t *len)
{
	return pm_test_slurp(upload_path(dir, "pending", id, ext), len);
}

static void
check_part(const http_request *r, const char *name, const char *filename, const char *type,
           const char *want, size_t want_len)
{
	const http_part *p = http_request_part(r, name);
	cr_assert_not_null(p, "no part '%s'", name);
	cr_expect_str_eq(p->filename, filename);
	cr_expect_str_eq(p->type, type);
	cr_assert(!p->decode_failed, "part '%s' does not inflate", name);
	cr_assert_eq(p->len, want_len, "part '%s': %zu bytes, the file has %zu", name, p->len, want_len);
	cr_assert(memcmp(p->data, want, want_len) == 0, "part '%s' differs from the file", name);
}

static void
check_field(const http_request *r, const char *name, const char *want)
{
	const http_part *p = http_request_part(r, name);
	cr_assert_not_null(p, "no field '%s'", name);
	cr_expect_str_eq(p->data, want, "field '%s'", name);
	cr_expect_str_empty(p->filename, "field '%s' came as a file", name);
}

static void
delivers_files(bool gzip)
{
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	const char *id = upload_id(0);
	size_t json_len, text_len;
	char *json = slurp_pending(dir, id, ".json", &json_len);
	char *text = slurp_pending(dir, id, ".crash", &text_len);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.no_gzip = !gzip;

	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.sent, 1);
	cr_assert_eq(res.kept + res.quarantined, 0);
	cr_assert_eq(http_server_count(srv), 1);
	const http_request *r = http_server_request(srv, 0);
	cr_expect_str_eq(r->method, "POST");
	cr_expect_str_eq(r->path, "/upload");
	char name[128];
	snprintf(name, sizeof name, "%s.json%s", id, gzip ? ".gz" : "");
	check_part(r, "report", name, gzip ? "application/gzip" : "application/json", json, json_len);
	snprintf(name, sizeof name, "%s.crash%s", id, gzip ? ".gz" : "");
	check_part(r, "crash", name, gzip ? "application/gzip" : "text/plain", text, text_len);
	check_field(r, "id", id);
	check_field(r, "state", "pending");
	check_field(r, "app_name", "crash_null");
	check_field(r, "app_version", "1.4 (212)");
	cr_expect(!upload_exists(upload_path(dir, "pending", id, ".json")), "still pending after a 200");
	cr_expect(!upload_exists(upload_path(dir, "pending", id, ".crash")));
	http_server_stop(srv);
	free(json);
	free(text);
	upload_remove(dir);
}

Test(upload, gzipped_parts_equal_the_files)
{
	delivers_files(true);
}

Test(upload, plain_parts_equal_the_files)
{
	delivers_files(false);
}

Test(upload, named_app_overrides_the_report)
{
	static const http_reply script[] = { { .status = 201 }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.app_name = "Fixture";
	opt.app_version = "9.9";
	cr_assert_eq(pass(dir, &opt, PM_OK).sent, 1);
	check_field(http_server_request(srv, 0), "app_name", "Fixture");
	check_field(http_server_request(srv, 0), "app_version", "9.9");
	http_server_stop(srv);
	upload_remove(dir);
}

/* Eight crashes of one site: storm control keeps six, each goes with its crash group's
 * signature and title, and the latest with how many more crashed (docs/upload.md). */
Test(upload, a_storm_sends_the_kept_reports_and_the_count_on_the_latest)
{
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(8, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	pm_store_options so = { .dir = dir };
	pm_store *s;
	cr_assert_eq(pm_store_open(&s, &so), PM_OK);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 6);
	char sig[PM_SIGNATURE_LEN + 1];
	snprintf(sig, sizeof sig, "%s", pm_store_get(s, PM_STATE_PENDING, 0)->signature);
	pm_upload_result res;
	cr_assert_eq(pm_upload_pending(s, &opt, &res), PM_OK);
	pm_store_close(s);
	cr_assert_eq(res.sent, 6);
	cr_assert_eq(http_server_count(srv), 6);
	for (size_t i = 0; i < 6; i++) {
		const http_request *r = http_server_request(srv, i);
		check_field(r, "signature", sig);
		check_field(r, "title", "SIGSEGV in crash_here");
		if (i < 5)
			cr_expect_null(http_request_part(r, "group_not_sent"), "request %zu is not the latest", i);
	}
	check_field(http_server_request(srv, 5), "group_not_sent", "2");
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, partial_reports_say_so)
{
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(0, 0);
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	r.complete = false;  /* what a salvaged report looks like */
	upload_write_report(dir, "torn-1", &r);
	pm_report_free(&r);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	cr_assert_eq(pass(dir, &opt, PM_OK).sent, 1);
	check_field(http_server_request(srv, 0), "state", "partial");
	check_field(http_server_request(srv, 0), "id", "torn-1");
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, server_error_then_ok_delivers_once)
{
	static const http_reply script[] = { { .status = 500 }, { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.sent, 1);
	cr_assert_eq(res.kept, 0);
	cr_assert_eq(http_server_count(srv), 2);
	cr_assert(!upload_exists(upload_path(dir, "pending", upload_id(0), ".json")));
	/* A new launch finds nothing left to send. */
	res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.sent + res.kept + res.quarantined, 0);
	cr_assert_eq(http_server_count(srv), 2, "delivered more than once");
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, server_down_keeps_reports_without_retrying)
{
	/* A port nobody listens on: bind, note it, close. */
	http_server *srv = http_server_start((const http_reply[]){ { 0 } });
	char url[64];
	snprintf(url, sizeof url, "%s", http_server_url(srv));
	uint16_t port = http_server_port(srv);
	http_server_stop(srv);
	char *dir = upload_make_reports(3, 0);
	pm_upload_options opt = upload_options(url);
	opt.max_attempts = 4;
	connect_count_watch(port);
	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.kept, 3);
	cr_assert_eq(res.sent + res.quarantined, 0);
	cr_assert_leq(connect_count(), opt.max_attempts);
	cr_assert_eq(connect_count(), 1, "no network: the pass should end at the first refusal");
	for (size_t i = 0; i < 3; i++)
		cr_assert(upload_exists(upload_path(dir, "pending", upload_id(i), ".crash")));
	upload_remove(dir);
}

Test(upload, dropped_connections_retry_a_bounded_number_of_times)
{
	static const http_reply script[] = {
		{ .status = 200, .hang_up = true }, { .status = 200, .hang_up = true },
		{ .status = 200, .hang_up = true }, { .status = 200, .hang_up = true }, { 0 },
	};
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	connect_count_watch(http_server_port(srv));
	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.kept, 1);
	cr_assert_eq(connect_count(), opt.max_attempts);
	cr_assert_eq(http_server_count(srv), opt.max_attempts);
	cr_assert(upload_exists(upload_path(dir, "pending", upload_id(0), ".json")));
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, payload_too_large_is_quarantined_with_the_reason)
{
	static const http_reply script[] = {
		{ .status = 413, .body = "report exceeds\n the 1 KiB limit" }, { 0 },
	};
	char *dir = upload_make_reports(1, 0);
	const char *id = upload_id(0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.quarantined, 1);
	cr_assert_eq(res.sent + res.kept, 0);
	cr_assert_eq(http_server_count(srv), 1, "a 413 is not retried");
	cr_assert(!upload_exists(upload_path(dir, "pending", id, ".json")));
	cr_assert(upload_exists(upload_path(dir, "quarantine", id, ".json")));
	char *reason = pm_test_slurp(upload_path(dir, "quarantine", id, ".reason"), NULL);
	cr_expect(strstr(reason, "413 Payload Too Large") != NULL, "reason: %s", reason);
	cr_expect(strstr(reason, "report exceeds the 1 KiB limit") != NULL, "reason: %s", reason);
	free(reason);
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, too_many_requests_waits_for_retry_after)
{
	static const http_reply script[] = {
		{ .status = 429, .headers = "Retry-After: 1\r\n" }, { .status = 200 }, { 0 },
	};
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.backoff_max_ms = 5000;
	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.sent, 1);
	cr_assert_eq(http_server_count(srv), 2);
	double gap = http_server_request(srv, 1)->arrived - http_server_request(srv, 0)->arrived;
	cr_assert_geq(gap, 1.0, "the retry came %.3f s after the 429 asked for 1 s", gap);
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, retry_after_beyond_the_cap_ends_the_pass)
{
	static const http_reply script[] = {
		{ .status = 429, .headers = "Retry-After: 3600\r\n" }, { 0 },
	};
	char *dir = upload_make_reports(2, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	pm_upload_result res = pass(dir, &opt, PM_OK);
	cr_assert_eq(res.kept, 2);
	cr_assert_eq(http_server_count(srv), 1, "the server asked us to stay away");
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, no_proxy_stands_between_us_and_loopback)
{
	/* A proxy could not reach our loopback, and a report must not travel to it in clear. */
	setenv("http_proxy", "http://192.0.2.1:3128", 1);
	setenv("ALL_PROXY", "http://192.0.2.1:3128", 1);
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	connect_count_watch(3128);
	cr_assert_eq(pass(dir, &opt, PM_OK).sent, 1);
	cr_assert_eq(connect_count(), 0, "the proxy was contacted");
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, plain_http_to_another_host_is_refused)
{
	char *dir = upload_make_reports(1, 0);
	pm_upload_options opt = upload_options("http://198.51.100.7:8080/upload");
	connect_count_watch(8080);
	pm_upload_result res = pass(dir, &opt, PM_E_INVAL);
	cr_assert_eq(res.sent + res.kept + res.quarantined, 0);
	cr_assert_eq(connect_count(), 0);
	cr_assert(upload_exists(upload_path(dir, "pending", upload_id(0), ".json")));
	upload_remove(dir);
}

Test(upload, extra_headers_arrive)
{
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	static const char *const headers[] = { "Authorization: Bearer tok-123456", "X-Project: demo" };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.headers = headers;
	opt.header_count = 2;
	cr_assert_eq(pass(dir, &opt, PM_OK).sent, 1);
	char v[128];
	const http_request *r = http_server_request(srv, 0);
	cr_expect_str_eq(http_request_header(r, "Authorization", v, sizeof v), "Bearer tok-123456");
	cr_expect_str_eq(http_request_header(r, "X-Project", v, sizeof v), "demo");
	cr_expect_null(http_request_header(r, "Expect", v, sizeof v));
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload, secrets_stay_out_of_logs_and_reasons, .init = cr_redirect_stderr)
{
	static const http_reply script[] = {
		{ .status = 500 },
		{ .status = 401, .body = "bad token hunter2-token for user alice-admin key=q-secret-42" },
		{ 0 },
	};
	static const char *const headers[] = { "Authorization: Bearer hunter2-token" };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	char url[256];
	snprintf(url, sizeof url, "http://alice-admin:pa55word@127.0.0.1:%u/upload?key=q-secret-42",
	         (unsigned)http_server_port(srv));
	pm_upload_options opt = upload_options(url);
	opt.headers = headers;
	opt.header_count = 1;
	cr_assert_eq(pass(dir, &opt, PM_OK).quarantined, 1);
	fflush(stderr);
	char log[8192] = "";
	size_t n = fread(log, 1, sizeof log - 1, cr_get_redirected_stderr());
	log[n] = '\0';
	char *reason = pm_test_slurp(upload_path(dir, "quarantine", upload_id(0), ".reason"), NULL);
	static const char *const secrets[] = { "hunter2-token", "pa55word", "alice-admin", "q-secret-42" };
	for (size_t i = 0; i < 4; i++) {
		cr_expect_null(strstr(log, secrets[i]), "the log shows %s:\n%s", secrets[i], log);
		cr_expect_null(strstr(reason, secrets[i]), "the reason shows %s: %s", secrets[i], reason);
	}
	cr_expect(strstr(log, "postmortem: ") != NULL, "nothing was logged");
	cr_expect(strstr(reason, "401") != NULL, "reason: %s", reason);
	free(reason);
	http_server_stop(srv);
	upload_remove(dir);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

Test(upload, a_thousand_reports_in_bounded_memory, .timeout = 300)
{
#ifdef UNDER_ASAN
	cr_skip_test("AddressSanitizer holds freed memory in quarantine: peak RSS tells nothing");
#endif
	enum { N = 1000, PAD = 16 * 1024 };
	char *dir = upload_make_reports(N, PAD);
	http_server *srv = http_server_start((const http_reply[]){ { 0 } });
	http_server_drop_bodies(srv);
	pm_upload_options opt = upload_options(http_server_url(srv));
	pm_store *s = upload_store(dir);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), N);
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	pm_upload_result res;
	cr_assert_eq(pm_upload_pending(s, &opt, &res), PM_OK);
	getrusage(RUSAGE_SELF, &after);
	pm_store_close(s);
	cr_assert_eq(res.sent, N);
	cr_assert_eq(http_server_count(srv), N);
	/* Every report held at once would be over 40 MiB (two files of some 20 KiB each); one at a time, a few. */
	long grew_kib = after.ru_maxrss - before.ru_maxrss;
	cr_assert_lt(grew_kib, 16 * 1024, "peak memory grew by %ld KiB over %d reports", grew_kib, N);
	http_server_stop(srv);
	upload_remove(dir);
}
