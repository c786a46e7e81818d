/*
 * test_upload_spotlight.c — Sentry's own code judges what `postmortem upload
 * --dsn` delivers: a real crash is uploaded to Spotlight (Sentry's development
 * receiver, tests/ecosystem/spotlight), and Spotlight's command line (`tail`)
 * and its UI in headless Chromium must show the crash with its exception, its
 * frames, its release and its environment.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash_util.h"
#include "spotlight_util.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload_spotlight, .timeout = 120, .fini = spotlight_stop_all);

/* A Spotlight server and the crash it received. */
typedef struct received {
	spotlight s;
	crash_run run;
	char id[33];              /* the event id */
	const pm_thread *crashed; /* the twin's crashed thread */
} received;

/* A real crash of crash_null_deref, version 2.5.0, uploaded to a fresh Spotlight in environment "staging". */
static void
crash_and_upload(received *rc)
{
	spotlight_start(&rc->s);
	static const char *const env[] = { "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	crash_run_sample(&rc->run, "null_deref", env);
	cr_assert_eq(rc->run.reports, 1);
	/* The event id is the incident id without its dashes (docs/sentry.md). */
	size_t n = 0;
	for (const char *p = rc->run.json.header.incident_id; p && *p && n < 32; p++)
		if (*p != '-')
			rc->id[n++] = (char)tolower((unsigned char)*p);
	rc->id[n] = '\0';
	cr_assert_eq(n, 32);
	int32_t t = pm_report_crashed_thread(&rc->run.json);
	cr_assert_geq(t, 0);
	rc->crashed = &rc->run.json.threads[t];
	cr_assert_gt(rc->crashed->frame_count, 1);
	char *dsn = spotlight_dsn_args(&rc->s, "abcdef123", 42), *args, *out;
	cr_assert(asprintf(&args, "%s --environment staging", dsn) > 0);
	cr_assert_eq(upload_cli(rc->run.dir, args, &out), 0, "%s", out);
	cr_assert(strstr(out, "sent 1, kept 0, quarantined 0"), "%s", out);
	free(out);
	free(args);
	free(dsn);
}

static void
received_free(received *rc)
{
	crash_run_free(&rc->run);
	spotlight_stop(&rc->s);
}

static bool
line_with(const char *out, void *needle)
{
	const char *at = strstr(out, needle);
	return at && strchr(at, '\n');
}

/* The frames block of the markdown `tail` prints: "**Stacktrace:**", a fence, a frame a line, a fence. */
static const char *
md_frames(const char *out)
{
	const char *at = strstr(out, "Stacktrace:**\n```\n");
	return at ? at + strlen("Stacktrace:**\n```\n") : NULL;
}

static bool
md_frames_closed(const char *out, void *unused)
{
	(void)unused;
	const char *frames = md_frames(out);
	return frames && strstr(frames, "```");
}

Test(upload_spotlight, tail_shows_the_crash_with_its_frames_release_and_environment)
{
	received rc;
	crash_and_upload(&rc);
	const pm_thread *t = rc.crashed;

	/* -f json: one line per error, with the frame Spotlight picks (the outermost in-app one, else the innermost). */
	static const char *const json_args[] = { "tail", "errors", "-f", "json", NULL };
	char *out = spotlight_cli(&rc.s, json_args, line_with, rc.id);
	const char *line = strstr(out, rc.id);
	cr_assert(line && strchr(line, '\n'), "spotlight tail -f json did not show event %s:\n%s", rc.id, out);
	while (line > out && line[-1] != '\n')
		line--;
	cJSON *ev = cJSON_ParseWithLength(line, (size_t)(strchr(line, '\n') - line));
	cr_assert(ev, "not JSON: %s", line);
	const char *want_type = rc.run.json.exception.signal_name;
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "exception_type")), want_type);
	const char *value = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "exception_value"));
	cr_expect(value && strstr(value, "EXC_BAD_ACCESS"), "%s", line);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "release")), "crash_null_deref@2.5.0");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "environment")), "staging");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "level")), "fatal");
	const char *function = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "function"));
	cr_assert(function, "no frame on the exception: %s", line);
	bool in_app = false;
	for (uint32_t i = 0; i < t->frame_count; i++)
		in_app |= t->frames[i].symbol && strcmp(t->frames[i].symbol, function) == 0 && t->frames[i].image >= 0 &&
		          rc.run.json.images[t->frames[i].image].is_app;
	cr_expect(in_app, "'%s' is no frame of the app's crashed thread", function);
	cJSON_Delete(ev);
	free(out);

	/* -f md: the exception's frames, caller first, "    at <function> (<file>)" each (C: no demangling). */
	static const char *const md_args[] = { "tail", "errors", "-f", "md", NULL };
	out = spotlight_cli(&rc.s, md_args, md_frames_closed, NULL);
	cr_assert(md_frames_closed(out, NULL), "spotlight tail -f md showed no stacktrace:\n%s", out);
	cr_assert_null(strstr(out, "No stacktrace available"), "%s", out);
	const char *at = md_frames(out);
	for (uint32_t i = t->frame_count; i-- > 0;) {
		const char *sym = t->frames[i].symbol ? t->frames[i].symbol : "<unknown>";
		char want[512];
		snprintf(want, sizeof want, "    at %s (", sym);
		cr_assert(strncmp(at, want, strlen(want)) == 0, "frame %u should be %s:\n%s", i, sym, out);
		at = strchr(at, '\n') + 1;
	}
	cr_expect(strncmp(at, "```", 3) == 0, "more frames than the crashed thread has:\n%s", out);
	free(out);
	received_free(&rc);
}

Test(upload_spotlight, the_error_page_in_chromium_shows_the_exception_and_the_crashed_frame)
{
	received rc;
	crash_and_upload(&rc);
	const pm_thread *t = rc.crashed;
	const char *shot = pm_test_build("tests/spotlight_error_page.png");
	char *why, *page = spotlight_error_page(&rc.s, rc.id, shot, &why);
	cr_assert(page, "the error page could not be read:\n%s", why);
	cJSON *seen = cJSON_Parse(page);
	cr_assert(seen, "not JSON: %s", page);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(seen, "type")), rc.run.json.exception.signal_name);
	/* The page lists the frames innermost first, each named by its function; the first is the crashed one. */
	const cJSON *frames = cJSON_GetObjectItem(seen, "frames");
	cr_assert_eq(cJSON_GetArraySize(frames), (int)t->frame_count, "%s (screenshot: %s)", page, shot);
	cr_assert(t->frames[0].symbol);
	const char *first = cJSON_GetStringValue(cJSON_GetArrayItem(frames, 0));
	cr_expect(first && strstr(first, t->frames[0].symbol), "the crashed frame %s is not first: %s (screenshot: %s)",
	          t->frames[0].symbol, page, shot);
	cJSON_Delete(seen);
	free(page);
	received_free(&rc);
}
