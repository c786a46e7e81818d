/*
 * test_upload_rules.c — the uploader's rules without a network: which URLs
 * and headers pass, what logs may show, Retry-After and backoff.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "delivery/upload/upload.h"

Test(upload_rules, plain_http_only_to_loopback)
{
	static const struct { const char *url; bool ok; } cases[] = {
		{ "https://crash.example/upload", true },
		{ "https://crash.example:8443/v1/reports?project=7", true },
		{ "http://localhost:8080/upload", true },
		{ "http://LOCALHOST/upload", true },
		{ "http://127.0.0.1:1/", true },
		{ "http://127.200.3.4/", true },
		{ "http://[::1]:8080/upload", true },
		{ "http://crash.example/upload", false },
		{ "http://128.0.0.1/", false },
		{ "http://10.0.0.1/", false },
		{ "http://[::2]/", false },
		{ "http://127.0.0.1.crash.example/", false },
		{ "http://localhost.crash.example/", false },
		{ "http://user@crash.example/", false },
		{ "ftp://localhost/upload", false },
		{ "file:///etc/passwd", false },
		{ "not a url", false },
		{ "", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect_eq(pmi_upload_url_check(cases[i].url, false) == PM_OK, cases[i].ok, "%s", cases[i].url);
	cr_expect_eq(pmi_upload_url_check(NULL, false), PM_E_INVAL);
	cr_expect_eq(pmi_upload_url_check("http://crash.example/upload", true), PM_OK, "allow_http permits it");
	cr_expect_eq(pmi_upload_url_check("ftp://crash.example/", true), PM_E_INVAL, "allow_http is for HTTP only");
}

Test(upload_rules, logs_show_no_credentials_of_the_url)
{
	char buf[256];
	pmi_upload_url_display("https://alice:s3cret@crash.example:8443/v1/up?token=t0k#frag", buf, sizeof buf);
	cr_expect_str_eq(buf, "https://crash.example:8443/v1/up");
	pmi_upload_url_display("http://127.0.0.1/", buf, sizeof buf);
	cr_expect_str_eq(buf, "http://127.0.0.1/");
	pmi_upload_url_display("::", buf, sizeof buf);
	cr_expect_str_eq(buf, "(unparsable URL)");
}

Test(upload_rules, scrub_masks_what_the_caller_gave)
{
	static const char *const headers[] = { "Authorization: Bearer abcd-1234-efgh", "X-Key:\tk3y-value  " };
	pm_upload_options opt = {
		.url = "https://bob:hunter22@crash.example/up?api_key=zz-99-zz&v=1",
		.headers = headers,
		.header_count = 2,
	};
	char text[512] = "401: token abcd-1234-efgh for bob? bad k3y-value, hunter22, key zz-99-zz, v 1";
	pmi_upload_scrub(text, &opt);
	cr_expect_str_eq(text, "401: token *** for bob? bad ***, ***, key ***, v 1");
}

Test(upload_rules, retry_after_seconds_and_dates)
{
	const int64_t now = 1700000000; /* Tue, 14 Nov 2023 22:13:20 GMT */
	cr_expect_eq(pmi_upload_retry_after_ms("1", now), 1000);
	cr_expect_eq(pmi_upload_retry_after_ms(" 120 ", now), 120000);
	cr_expect_eq(pmi_upload_retry_after_ms("0", now), 0);
	cr_expect_eq(pmi_upload_retry_after_ms("Tue, 14 Nov 2023 22:13:50 GMT", now), 30000);
	cr_expect_eq(pmi_upload_retry_after_ms("Tue, 14 Nov 2023 22:00:00 GMT", now), 0, "a date past is now");
	cr_expect_eq(pmi_upload_retry_after_ms("99999999999999999999", now), UPLOAD_RETRY_AFTER_MAX_MS);
	cr_expect_eq(pmi_upload_retry_after_ms("Fri, 31 Dec 2100 00:00:00 GMT", now), UPLOAD_RETRY_AFTER_MAX_MS);
	cr_expect_eq(pmi_upload_retry_after_ms("-5", now), -1);
	cr_expect_eq(pmi_upload_retry_after_ms("5s", now), -1);
	cr_expect_eq(pmi_upload_retry_after_ms("soon", now), -1);
	cr_expect_eq(pmi_upload_retry_after_ms("", now), -1);
}

Test(upload_rules, backoff_doubles_up_to_the_cap_with_jitter)
{
	pm_upload_options opt = { .backoff_ms = 100, .backoff_max_ms = 1000 };
	for (uint32_t attempt = 1; attempt <= 8; attempt++) {
		uint32_t ceiling = 100u << (attempt - 1);
		if (ceiling > 1000)
			ceiling = 1000;
		uint32_t lo = UINT32_MAX, hi = 0;
		for (int i = 0; i < 200; i++) {
			uint32_t d = pmi_upload_backoff(&opt, attempt);
			lo = d < lo ? d : lo;
			hi = d > hi ? d : hi;
		}
		cr_expect_leq(hi, ceiling, "attempt %u waited %u ms, above %u", attempt, hi, ceiling);
		cr_expect_lt(lo, hi, "attempt %u: no jitter", attempt);
	}
}

Test(upload_rules, options_get_defaults_and_headers_are_checked)
{
	pm_upload_options in = { .url = "https://crash.example/" }, out;
	cr_assert_eq(pmi_upload_options_resolve(&in, &out), PM_OK);
	cr_expect_eq(out.connect_timeout_ms, 10000);
	cr_expect_eq(out.timeout_ms, 60000);
	cr_expect_eq(out.pass_timeout_ms, 120000, "a pass lasts at most twice a request");
	cr_expect_eq(out.max_attempts, 5);
	cr_expect_eq(out.backoff_ms, 1000);
	cr_expect_eq(out.backoff_max_ms, 60000);
	static const char *const bad[][1] = {
		{ "X-A: 1\r\nX-B: 2" }, { "X-A: 1\n" }, { "NoColon" }, { ": empty name" }, { "Bad Name: v" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		in.headers = bad[i];
		in.header_count = 1;
		cr_expect_eq(pmi_upload_options_resolve(&in, &out), PM_E_INVAL, "accepted '%s'", bad[i][0]);
	}
	static const char *const good[] = { "Authorization: Bearer x", "X-Empty:" };
	in.headers = good;
	in.header_count = 2;
	cr_expect_eq(pmi_upload_options_resolve(&in, &out), PM_OK);
}
