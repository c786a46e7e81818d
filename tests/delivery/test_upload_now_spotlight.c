/*
 * test_upload_now_spotlight.c — Sentry's own receiver judges a crash that
 * went out at once: a real program crashes with POSTMORTEM_DSN pointing at
 * Spotlight (tests/ecosystem/spotlight), nothing else is launched, and
 * Spotlight's stream holds the event with the run's session, and its error
 * page in headless Chromium shows the crashed frame.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "crash/crash_util.h"
#include "spotlight_util.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload_now_spotlight, .timeout = 120, .fini = spotlight_stop_all);

/* The type of the first item of an envelope as the stream shows it ([header, [[item header, payload], ...]]). */
static const char *
item_type(const cJSON *env, int i)
{
	const cJSON *it = cJSON_GetArrayItem(cJSON_GetArrayItem(env, 1), i);
	return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(it, 0), "type"));
}

/* An envelope holding an event and a session: the crash and its run, sent together. */
static const cJSON *
crash_envelope(const cJSON *envelopes)
{
	const cJSON *env;
	cJSON_ArrayForEach(env, envelopes)
	{
		bool event = false, session = false;
		for (int i = 0; i < cJSON_GetArraySize(cJSON_GetArrayItem(env, 1)); i++) {
			const char *t = item_type(env, i);
			event |= t && strcmp(t, "event") == 0;
			session |= t && strcmp(t, "session") == 0;
		}
		if (event && session)
			return env;
	}
	return NULL;
}

static bool
has_crash(const cJSON *envelopes, void *unused)
{
	(void)unused;
	return crash_envelope(envelopes) != NULL;
}

Test(upload_now_spotlight, the_crash_is_on_spotlights_page_without_another_launch)
{
	spotlight s;
	spotlight_start(&s);
	char *args = spotlight_dsn_args(&s, "abcdef123", 42), *dsn, *dir = pm_test_tmpdir();
	cr_assert(asprintf(&dsn, "POSTMORTEM_DSN=%s", args + strlen("--dsn ")) > 0);
	const char *env[] = { dsn, "POSTMORTEM_APP_VERSION=2.5.0", NULL };
	int st = crash_wait(crash_spawn(crash_sample_path("null_deref"), NULL, dir, env));
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "status %#x", st);

	cJSON *envelopes = spotlight_stream(&s, has_crash, NULL);
	const cJSON *crash = crash_envelope(envelopes);
	cr_assert(crash, "Spotlight got no envelope with the crash and its session: %s", cJSON_PrintUnformatted(envelopes));
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(crash, 0), "event_id"));
	cr_assert(id);

	const char *shot = pm_test_build("tests/spotlight_upload_now_page.png");
	char *why, *page = spotlight_error_page(&s, id, shot, &why);
	cr_assert(page, "the error page could not be read:\n%s", why);
	cJSON *seen = cJSON_Parse(page);
	cr_assert(seen, "not JSON: %s", page);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(seen, "type")), "SIGSEGV");
	const char *first = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(seen, "frames"), 0));
	cr_expect(first && strstr(first, "crash_null_deref"), "the crashed frame is not first: %s (screenshot: %s)", page,
	          shot);
	cJSON_Delete(seen);
	free(page);
	cJSON_Delete(envelopes);
	free(dsn);
	free(args);
	spotlight_stop(&s);
	free(uploaders_done(dir, 1));
	pm_test_rmdir(dir);
}
