/*
 * test_sessions_spotlight.c — Sentry's own receiver judges release health
 * (issue 33): a real app (sample_crashes/runs.c) runs six times — three clean
 * exits, an exit(3), a crash, a kill -9 — and `postmortem upload --dsn` sends
 * to Spotlight (tests/ecosystem/spotlight), whose /stream must hold six
 * sessions with the right statuses and errors, each with Sentry's documented
 * fields (develop.sentry.dev, "Sessions": sid, init, started, timestamp,
 * duration, status, errors, attrs.release, attrs.environment; postmortem
 * sends no did), their release and environment those of the crash's event,
 * the crashed one in the event's envelope, ending where the crash happened.
 * A second upload sends nothing again; an upload while the server is down
 * loses nothing: the next one sends what it could not.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "envelope_util.h"
#include "runs_util.h"
#include "spotlight_util.h"
#include "upload_util.h"
#include "util.h"

TestSuite(sessions_spotlight, .timeout = 240, .fini = spotlight_stop_all);

/* Each item of the streamed envelopes of type `type`: its payload, and the envelope it came in. */
typedef struct found {
	const cJSON *payload[16];
	const cJSON *envelope[16];
	size_t n;
} found;

static void
find_items(const cJSON *envelopes, const char *type, found *f)
{
	f->n = 0;
	const cJSON *env, *item;
	cJSON_ArrayForEach(env, envelopes)
		cJSON_ArrayForEach(item, cJSON_GetArrayItem(env, 1))
			if (str_of(cJSON_GetArrayItem(item, 0), "type") &&
			    strcmp(str_of(cJSON_GetArrayItem(item, 0), "type"), type) == 0 && f->n < 16) {
				f->payload[f->n] = cJSON_GetArrayItem(item, 1);
				f->envelope[f->n++] = env;
			}
}

static bool
enough_sessions(const cJSON *envelopes, void *want)
{
	found f;
	find_items(envelopes, "session", &f);
	return f.n >= *(size_t *)want;
}

static char *
upload(const spotlight *sp, const char *dir, int *rc)
{
	char *dsn = spotlight_dsn_args(sp, "abcdef123", 42), *args, *out;
	cr_assert(asprintf(&args, "%s --environment staging", dsn) > 0);
	*rc = upload_cli(dir, args, &out);
	free(args);
	free(dsn);
	return out;
}

Test(sessions_spotlight, six_runs_arrive_as_six_sessions_that_agree_with_the_crash)
{
	static const char *const env[] = { "POSTMORTEM_APP_VERSION=3.1", NULL };
	spotlight sp;
	spotlight_start(&sp);
	char *dir = pm_test_tmpdir();
	pid_t pids[RUNS_SIX];
	runs_six(dir, env, pids);
	int rc;
	char *out = upload(&sp, dir, &rc);
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "sent 1, kept 0, quarantined 0"), "%s", out);
	cr_expect(strstr(out, "sessions: sent 6, kept 0, not sent without a release 0"), "%s", out);
	free(out);

	size_t want = RUNS_SIX;
	cJSON *stream = spotlight_stream(&sp, enough_sessions, &want);
	found sessions, events;
	find_items(stream, "session", &sessions);
	find_items(stream, "event", &events);
	cr_assert_eq(sessions.n, (size_t)RUNS_SIX, "Spotlight's /stream holds %zu sessions", sessions.n);
	cr_assert_eq(events.n, 1u);
	const cJSON *event = events.payload[0];
	cr_assert_str_eq(str_of(event, "release"), "crash_runs@3.1");
	cr_assert_str_eq(str_of(event, "environment"), "staging");

	int exited = 0, errored = 0, crashed = 0, abnormal = 0;
	for (size_t i = 0; i < sessions.n; i++) {
		const cJSON *s = sessions.payload[i], *attrs = cJSON_GetObjectItem(s, "attrs");
		expect_session_update(s, "staging", "type");
		for (size_t k = 0; k < i; k++)
			cr_expect_str_neq(str_of(s, "sid"), str_of(sessions.payload[k], "sid"), "two runs, one sid");
		cr_expect_str_eq(str_of(attrs, "release"), str_of(event, "release"));
		cr_expect_str_eq(str_of(attrs, "environment"), str_of(event, "environment"));
		const char *status = str_of(s, "status");
		int errors = cJSON_GetObjectItem(s, "errors")->valueint;
		const cJSON *duration = cJSON_GetObjectItem(s, "duration");
		cr_assert(status);
		if (strcmp(status, "crashed") == 0) {
			crashed++;
			cr_expect_eq(sessions.envelope[i], events.envelope[0], "the crashed session is in its crash's envelope");
			cr_expect_str_eq(str_of(s, "timestamp"), str_of(event, "timestamp"), "it ended where it crashed");
			cr_assert(cJSON_IsNumber(duration));
			cr_expect(duration->valuedouble - (rfc3339_seconds(str_of(s, "timestamp")) - rfc3339_seconds(str_of(s, "started"))) <
			          1e-3, "duration %f", duration->valuedouble);
			cr_expect_geq(errors, 1, "the crash is an error");
		} else if (strcmp(status, "exited") == 0) {
			exited += errors == 0;
			errored += errors == 1; /* exit(3) */
			cr_expect(cJSON_IsNumber(duration) && duration->valuedouble >= 0);
		} else if (strcmp(status, "abnormal") == 0) {
			abnormal++;
			cr_expect_null(duration, "an end nobody saw has no duration");
		} else {
			cr_expect_fail("status %s", status);
		}
	}
	cr_expect_eq(exited, 3);
	cr_expect_eq(errored, 1);
	cr_expect_eq(crashed, 1);
	cr_expect_eq(abnormal, 1);
	size_t envelopes_before = (size_t)cJSON_GetArraySize(stream);
	cJSON_Delete(stream);

	/* A second upload sends nothing again. */
	out = upload(&sp, dir, &rc);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "sent 0, kept 0, quarantined 0"), "%s", out);
	cr_expect(strstr(out, "sessions: sent 0, kept 0"), "%s", out);
	free(out);

	/* Two runs more while the server is down: nothing lost, the next upload sends them. */
	int status;
	runs_run("crash_runs", dir, "exit0", env, &status);
	runs_run("crash_runs", dir, "exit3", env, &status);
	spotlight dead = sp;
	dead.port = 1; /* nothing listens on the loopback's port 1 */
	out = upload(&dead, dir, &rc);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "sessions: sent 0, kept 2"), "%s", out);
	free(out);
	out = upload(&sp, dir, &rc);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "sessions: sent 2, kept 0"), "%s", out);
	free(out);
	want = RUNS_SIX + 2;
	stream = spotlight_stream(&sp, enough_sessions, &want);
	find_items(stream, "session", &sessions);
	cr_expect_eq(sessions.n, (size_t)RUNS_SIX + 2, "each session exactly once");
	cr_expect_eq((size_t)cJSON_GetArraySize(stream), envelopes_before + 1, "one envelope more: the two sessions");
	for (size_t i = 0; i < sessions.n; i++)
		for (size_t k = 0; k < i; k++)
			cr_expect_str_neq(str_of(sessions.payload[i], "sid"), str_of(sessions.payload[k], "sid"), "sent twice");
	cJSON_Delete(stream);
	spotlight_stop(&sp);
	pm_test_rmdir(dir);
}
