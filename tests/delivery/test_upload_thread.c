/*
 * test_upload_thread.c — pm_upload_start/pm_upload_stop: delivery on a
 * background thread that never holds up its caller, by libpostmortem-tools,
 * which is loaded only when a report is pending.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_server.h"
#include "upload_util.h"

TestSuite(upload_thread, .init = cr_redirect_stderr, .timeout = 120);

static bool
tools_loaded(void)
{
	void *lib = dlopen("libpostmortem-tools.so.0", RTLD_NOW | RTLD_NOLOAD);
	if (lib)
		dlclose(lib);
	return lib != NULL;
}

/* Poll (the thread gives no other signal) until path is gone; false after ~20 s. */
static bool
wait_gone(const char *path)
{
	for (int i = 0; i < 2000; i++) {
		if (!upload_exists(path))
			return true;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return false;
}

static char *
stderr_text(void)
{
	fflush(stderr);
	static char log[16384];
	size_t n = fread(log, 1, sizeof log - 1, cr_get_redirected_stderr());
	log[n] = '\0';
	return log;
}

Test(upload_thread, start_returns_at_once_and_delivers_in_the_background)
{
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	char json[4096];
	snprintf(json, sizeof json, "%s", upload_path(dir, "pending", upload_id(0), ".json"));
	setenv("POSTMORTEM_DIR", dir, 1);
	http_server *srv = http_server_start(script);

	/* Options in memory the caller frees right after starting. */
	char *url = strdup(http_server_url(srv)), *header = strdup("X-Token: background-7");
	const char **headers = malloc(sizeof *headers);
	headers[0] = header;
	pm_upload_options opt = upload_options(url);
	opt.headers = headers;
	opt.header_count = 1;
	cr_assert_not(tools_loaded());
	cr_assert_eq(pm_upload_start(&opt), 0, "pm_upload_start: %s", strerror(errno));
	cr_assert(tools_loaded(), "a report is pending: the uploader's library must be loaded");
	memset(url, 'x', strlen(url));
	memset(header, 'x', strlen(header));
	free(url);
	free(header);
	free(headers);

	/* The server holds its answer: had start delivered on our thread, the report would be gone. */
	cr_assert(upload_exists(json), "pm_upload_start returned only after delivering");
	cr_assert(http_server_wait(srv, 1, 20000), "the background thread sent nothing");
	http_server_release(srv);
	cr_assert(wait_gone(json), "the report was never marked sent");
	pm_upload_stop(10000);

	cr_assert_eq(http_server_count(srv), 1);
	char v[64];
	cr_expect_str_eq(http_request_header(http_server_request(srv, 0), "X-Token", v, sizeof v),
	                 "background-7");
	cr_expect_null(strstr(stderr_text(), "did not stop"));
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload_thread, stop_aborts_the_request_in_flight)
{
	static const http_reply script[] = { { .status = 200, .hold = true }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	setenv("POSTMORTEM_DIR", dir, 1);
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.timeout_ms = 100000;
	cr_assert_eq(pm_upload_start(&opt), 0);
	cr_assert(http_server_wait(srv, 1, 20000), "the background thread sent nothing");
	/* The server never answers: only the abort lets the thread be joined in time. */
	pm_upload_stop(30000);
	const char *log = stderr_text();
	cr_expect_null(strstr(log, "did not stop"), "%s", log);
	cr_expect(strstr(log, "stopping") != NULL, "%s", log);
	cr_assert(upload_exists(upload_path(dir, "pending", upload_id(0), ".json")),
	          "an aborted delivery must leave the report pending");
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload_thread, nothing_pending_loads_nothing)
{
	char *dir = upload_make_reports(0, 0);
	setenv("POSTMORTEM_DIR", dir, 1);
	pm_upload_options opt = upload_options("http://127.0.0.1:9/upload");
	cr_assert_eq(pm_upload_start(&opt), 0, "pm_upload_start: %s", strerror(errno));
	cr_assert_not(tools_loaded(), "nothing is pending, yet libpostmortem-tools was loaded");
	/* Nothing started: a second start is no uploader too many. */
	cr_assert_eq(pm_upload_start(&opt), 0);
	pm_upload_stop(1000);
	upload_remove(dir);
}

/* The options are checked once a report makes the uploader worth loading. */
Test(upload_thread, refused_options_fail_at_once)
{
	char *dir = upload_make_reports(1, 0);
	setenv("POSTMORTEM_DIR", dir, 1);
	pm_upload_options opt = upload_options("http://198.51.100.7/upload");
	errno = 0;
	cr_assert_eq(pm_upload_start(&opt), -1);
	cr_assert_eq(errno, EINVAL);
	static const char *const bad[] = { "X-Ok: 1\r\nX-Smuggled: 2" };
	opt = upload_options("https://crash.example/upload");
	opt.headers = bad;
	opt.header_count = 1;
	cr_assert_eq(pm_upload_start(&opt), -1);
	cr_assert_eq(errno, EINVAL);
	pm_upload_stop(1000); /* nothing to stop: a no-op */
	upload_remove(dir);
}

Test(upload_thread, one_uploader_at_a_time)
{
	char *dir = upload_make_reports(1, 0);
	setenv("POSTMORTEM_DIR", dir, 1);
	pm_upload_options opt = upload_options("http://127.0.0.1:9/upload");
	cr_assert_eq(pm_upload_start(&opt), 0);
	cr_assert_eq(pm_upload_start(&opt), -1);
	cr_assert_eq(errno, EBUSY);
	pm_upload_stop(10000);
	cr_assert_eq(pm_upload_start(&opt), 0, "a stopped uploader can be started again");
	pm_upload_stop(10000);
	upload_remove(dir);
}
