/*
 * test_upload_sentry.c — `postmortem upload --dsn` against the loopback server:
 * one envelope per report, its framing, the event (valid against Sentry's
 * schema, with the crashed thread's frames and the images of the twin), and
 * what 429, Retry-After, X-Sentry-Rate-Limits, 4xx and a refused connection
 * do to the reports.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "envelope_util.h"
#include "fixture_report.h"
#include "http_server.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload_sentry, .timeout = 180);

#define KEY "abcdef123"

static char *
dsn_args(const http_server *srv)
{
	char *args;
	cr_assert(asprintf(&args, "--dsn http://" KEY "@127.0.0.1:%u/42 --attempts 2", http_server_port(srv)) > 0);
	return args;
}

static uint64_t
hex_of(const char *s)
{
	cr_assert(s && strncmp(s, "0x", 2) == 0, "not an address: %s", s ? s : "(none)");
	return strtoull(s + 2, NULL, 16);
}

/*
 * t's frames in stacktrace st, caller first (the twin is innermost first):
 * the address, the image as package (in_app for the executable's), the
 * symbol as the report names it and the function as people read it, the
 * registers; the pc (frame 0) is not to be stepped back into its call.
 */
static void
expect_frames(const cJSON *st, const pm_report *twin, const pm_thread *t, const char *where)
{
	const cJSON *frames = cJSON_GetObjectItem(st, "frames");
	cr_assert_eq((uint32_t)cJSON_GetArraySize(frames), t->frame_count, "%s: frames", where);
	for (uint32_t i = 0; i < t->frame_count; i++) {
		const pm_frame *fr = &t->frames[i];
		const cJSON *f = cJSON_GetArrayItem(frames, (int)(t->frame_count - 1 - i));
		cr_expect_eq(hex_of(str_of(f, "instruction_addr")), fr->address, "%s: frame %u", where, i);
		if (fr->symbol) {
			char *plain = pm_demangle(fr->symbol);
			cr_expect_str_eq(str_of(f, "symbol"), fr->symbol, "%s: frame %u", where, i);
			cr_expect_str_eq(str_of(f, "function"), plain ? plain : fr->symbol, "%s: frame %u", where, i);
			free(plain);
		}
		if (fr->image >= 0) {
			const pm_image *im = &twin->images[fr->image];
			cr_expect_str_eq(str_of(f, "package"), im->path ? im->path : im->name, "%s: frame %u", where, i);
			cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItem(f, "in_app")), im->is_app, "%s: frame %u", where, i);
		}
	}
	if (t->frames[0].how == PM_HOW_CONTEXT)
		cr_expect_str_eq(str_of(st, "instruction_addr_adjustment"), "all_but_first", "%s", where);
	const cJSON *regs = cJSON_GetObjectItem(st, "registers");
	if (t->regs && t->regs->count)
		cr_expect_eq(hex_of(str_of(regs, t->regs->reg[0].name)), t->regs->reg[0].value, "%s", where);
}

/* The crashed thread's frames, on the exception (where Sentry shows and groups them) and in threads. */
static void
expect_crashed_frames(const cJSON *event, const pm_report *twin)
{
	int32_t ci = pm_report_crashed_thread(twin);
	cr_assert_geq(ci, 0);
	const pm_thread *t = &twin->threads[ci];
	const cJSON *th, *crashed = NULL;
	cJSON_ArrayForEach(th, cJSON_GetObjectItem(cJSON_GetObjectItem(event, "threads"), "values"))
		if (cJSON_IsTrue(cJSON_GetObjectItem(th, "crashed")))
			crashed = th;
	cr_assert(crashed, "no crashed thread in the event");
	expect_frames(cJSON_GetObjectItem(crashed, "stacktrace"), twin, t, "threads");
	const cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(event, "exception"), "values"), 0);
	cr_expect_eq((uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(ex, "thread_id")), t->id ? t->id : (uint64_t)ci);
	expect_frames(cJSON_GetObjectItem(ex, "stacktrace"), twin, t, "exception");
}

/* Every image of the twin that has a build id, by its debug id, at its address. */
static void
expect_images(const cJSON *event, const pm_report *twin, const char *type)
{
	const cJSON *images = cJSON_GetObjectItem(cJSON_GetObjectItem(event, "debug_meta"), "images");
	int listed = 0;
	for (uint32_t i = 0; i < twin->image_count; i++) {
		const pm_image *im = &twin->images[i];
		uint8_t id[16];
		if (!pm_image_debug_id(im, twin->os, id))
			continue;
		char want[37];
		snprintf(want, sizeof want, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", id[0],
		         id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12], id[13],
		         id[14], id[15]);
		const cJSON *d = cJSON_GetArrayItem(images, listed++);
		cr_assert(d, "image %u (%s) is missing", i, im->name);
		cr_expect_str_eq(str_of(d, "type"), type);
		cr_expect_str_eq(str_of(d, "debug_id"), want, "image %s", im->name);
		cr_expect_eq(hex_of(str_of(d, "image_addr")), im->start);
		cr_expect_eq((uint64_t)cJSON_GetObjectItem(d, "image_size")->valuedouble, im->size);
		if (strcmp(type, "elf") == 0)
			cr_expect_str_eq(str_of(d, "code_id"), crash_image_build_id(im));
	}
	cr_expect_eq(cJSON_GetArraySize(images), listed);
	cr_expect_gt(listed, 0);
}

/* A pending report to send: its twin (model) and its two files' bytes, read before they go. */
typedef struct report {
	const char *kind;
	char *dir, *id;
	pm_report twin;
	char *crash, *json, *dmp; /* dmp: the minidump the handler wrote beside, or NULL */
	size_t crash_len, json_len, dmp_len;
	crash_run run;           /* owns dir for captured reports */
	bool captured;
} report;

static void
report_from_run(report *rep, const char *kind)
{
	crash_run *run = &rep->run;
	cr_assert_eq(run->reports, 1, "%s left %d reports", kind, run->reports);
	rep->captured = true;
	rep->kind = kind;
	rep->dir = run->dir;
	const char *base = strrchr(run->json_path, '/') + 1;
	rep->id = strndup(base, strlen(base) - strlen(".json"));
	rep->crash = pm_test_slurp(run->crash_path, &rep->crash_len);
	rep->json = pm_test_slurp(run->json_path, &rep->json_len);
	const char *dmp = upload_path(rep->dir, "pending", rep->id, ".dmp");
	cr_assert_eq(access(dmp, R_OK), 0, "%s: no minidump beside the report", kind);
	rep->dmp = pm_test_slurp(dmp, &rep->dmp_len);
	pm_read_error err;
	pm_report_init(&rep->twin);
	cr_assert_eq(pm_read_report_file(run->json_path, &rep->twin, &err), PM_OK);
}

/* An Apple report read from disk, converted into a pending report of a fresh directory. */
static void
report_converted(report *rep, const char *sample)
{
	rep->kind = "converted";
	rep->dir = pm_test_tmpdir();
	rep->id = strdup("apple-0001");
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "mkdir -p %s/pending && %s convert %s --to json -o %s/pending/%s.json && "
	                         "%s convert %s --to crash -o %s/pending/%s.crash",
	                   rep->dir, pm_test_build("tools/postmortem"), sample, rep->dir, rep->id,
	                   pm_test_build("tools/postmortem"), sample, rep->dir, rep->id) > 0);
	cr_assert_eq(pm_test_run(cmd, &out), 0, "%s", out);
	free(cmd);
	free(out);
	rep->crash = pm_test_slurp(upload_path(rep->dir, "pending", rep->id, ".crash"), &rep->crash_len);
	rep->json = pm_test_slurp(upload_path(rep->dir, "pending", rep->id, ".json"), &rep->json_len);
	pm_read_error err;
	pm_report_init(&rep->twin);
	cr_assert_eq(pm_read_report_file(upload_path(rep->dir, "pending", rep->id, ".json"), &rep->twin, &err), PM_OK);
}

/* pm_annotate's values in extra (and tags when they fit), pm_breadcrumb's in breadcrumbs. */
static void
expect_app_context(const cJSON *event, const pm_report *twin)
{
	const cJSON *extra = cJSON_GetObjectItem(event, "extra"), *tags = cJSON_GetObjectItem(event, "tags");
	for (uint32_t i = 0; i < twin->annotation_count; i++) {
		const pm_kv *kv = &twin->annotations[i];
		cr_expect_str_eq(str_of(extra, kv->key), kv->value, "extra.%s", kv->key);
		if (strlen(kv->value) <= 200 && !strchr(kv->value, '\n'))
			cr_expect_str_eq(str_of(tags, kv->key), kv->value, "tags.%s", kv->key);
		else
			cr_expect_null(str_of(tags, kv->key), "tags.%s is longer than Sentry accepts", kv->key);
	}
	const cJSON *crumbs = cJSON_GetObjectItem(cJSON_GetObjectItem(event, "breadcrumbs"), "values");
	cr_expect_eq(cJSON_GetArraySize(crumbs), (int)twin->breadcrumb_count);
	for (uint32_t i = 0; i < twin->breadcrumb_count; i++) {
		const cJSON *c = cJSON_GetArrayItem(crumbs, (int)i);
		cr_expect_str_eq(str_of(c, "message"), twin->breadcrumbs[i].message);
		cr_expect_not_null(str_of(c, "timestamp"));
	}
}

/* The one request of rep's upload: framing, auth, attachments, event; the event goes to event_path. */
static void
expect_envelope(const report *rep, const http_request *r, const char *event_path)
{
	char v[512];
	cr_expect_str_eq(r->path, "/api/42/envelope/");
	cr_expect_str_eq(http_request_header(r, "Content-Type", v, sizeof v), "application/x-sentry-envelope");
	cr_assert(http_request_header(r, "X-Sentry-Auth", v, sizeof v));
	cr_expect(strstr(v, "Sentry sentry_version=7") == v, "%s", v);
	cr_expect(strstr(v, "sentry_key=" KEY ","), "%s", v);
	cr_expect(strstr(v, "sentry_client=postmortem/"), "%s", v);

	envelope e;
	envelope_parse(r, &e);
	cr_assert_eq(e.count, rep->dmp ? 4 : 3, "%s: event, .crash, twin (and minidump)", rep->kind);
	cr_expect_str_eq(str_of(e.items[0].head, "type"), "event");
	char name[128];
	snprintf(name, sizeof name, "%s.crash", rep->id);
	cr_expect_str_eq(str_of(e.items[1].head, "filename"), name);
	cr_expect(e.items[1].len == rep->crash_len && memcmp(e.items[1].data, rep->crash, rep->crash_len) == 0);
	snprintf(name, sizeof name, "%s.json", rep->id);
	cr_expect_str_eq(str_of(e.items[2].head, "filename"), name);
	cr_expect(e.items[2].len == rep->json_len && memcmp(e.items[2].data, rep->json, rep->json_len) == 0);
	for (size_t i = 1; i < 3; i++) {
		cr_expect_str_eq(str_of(e.items[i].head, "type"), "attachment");
		cr_expect_null(str_of(e.items[i].head, "attachment_type"), "plain attachments: no second event");
	}
	/* The minidump is the event's own: Sentry unwinds it with the stacks it holds. */
	if (rep->dmp) {
		cr_expect_str_eq(str_of(e.items[3].head, "attachment_type"), "event.minidump");
		snprintf(name, sizeof name, "%s.dmp", rep->id);
		cr_expect_str_eq(str_of(e.items[3].head, "filename"), name);
		cr_expect(e.items[3].len == rep->dmp_len && memcmp(e.items[3].data, rep->dmp, rep->dmp_len) == 0);
	}

	cJSON *event = cJSON_ParseWithLength(e.items[0].data, e.items[0].len);
	cr_assert(event);
	cr_expect_str_eq(str_of(event, "event_id"), str_of(e.head, "event_id"));
	cr_expect_str_eq(str_of(event, "platform"), "native");
	const cJSON *ex = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(event, "exception"), "values"), 0);
	const cJSON *mech = cJSON_GetObjectItem(ex, "mechanism");
	if (rep->twin.kind == PM_KIND_CRASH) {
		cr_expect_str_eq(str_of(event, "level"), "fatal");
		cr_expect_str_eq(str_of(mech, "type"), "signal");
		cr_expect(cJSON_IsFalse(cJSON_GetObjectItem(mech, "handled")));
		const cJSON *sig = cJSON_GetObjectItem(cJSON_GetObjectItem(mech, "meta"), "signal");
		cr_expect_eq(cJSON_GetObjectItem(sig, "number")->valueint, rep->twin.exception.signal);
		cr_expect_str_eq(str_of(sig, "name"), rep->twin.exception.signal_name);
		cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(mech, "synthetic")), "a signal's name does not group");
		expect_crashed_frames(event, &rep->twin);
	}
	/* Hangs and snapshots put the thread they are about on the exception too. */
	if (rep->twin.kind != PM_KIND_CRASH && pm_report_crashed_thread(&rep->twin) >= 0)
		expect_crashed_frames(event, &rep->twin);
	/* The release is the app's id and version when the report knows the version. */
	const char *version = rep->twin.header.version;
	if (rep->twin.os == PM_OS_LINUX && version && strcmp(version, "???") != 0) {
		char want[256];
		snprintf(want, sizeof want, "%s@%s", rep->twin.header.identifier, version);
		cr_expect_str_eq(str_of(event, "release"), want);
	}
	cr_expect_str_eq(str_of(event, "environment"), "production", "the default environment, as sentry-native's");
	if (rep->twin.os == PM_OS_LINUX) {
		/* Our incident id becomes the event id. */
		char want[33] = { 0 };
		for (size_t i = 0, n = 0; rep->id[i] && n < 32; i++)
			if (rep->id[i] != '-')
				want[n++] = (char)tolower((unsigned char)rep->id[i]);
		cr_expect_str_eq(str_of(e.head, "event_id"), want);
		cr_expect_str_eq(str_of(cJSON_GetObjectItem(cJSON_GetObjectItem(event, "contexts"), "os"), "name"), "Linux");
	}
	expect_images(event, &rep->twin, rep->twin.os == PM_OS_DARWIN ? "macho" : "elf");
	expect_app_context(event, &rep->twin);
	FILE *f = fopen(event_path, "w");
	cr_assert(f);
	fwrite(e.items[0].data, 1, e.items[0].len, f);
	fclose(f);
	cJSON_Delete(event);
	envelope_free(&e);
}

static void
report_free(report *rep)
{
	pm_report_free(&rep->twin);
	free(rep->crash);
	free(rep->json);
	free(rep->dmp);
	if (rep->captured)
		crash_run_free(&rep->run);
	else
		upload_remove(rep->dir);
	free(rep->id);
}

Test(upload_sentry, every_kind_of_report_arrives_as_one_valid_envelope)
{
	static const char *const hang_args[] = { "keep", NULL };
	/* The runs' sessions, which would go too, are test_sessions.c's. */
	static const char *const versioned[] = { "POSTMORTEM_APP_VERSION=3.1.4", "POSTMORTEM_SESSIONS=0", NULL };
	static const char *const no_sessions[] = { "POSTMORTEM_SESSIONS=0", NULL };
	report reps[5] = { 0 };
	unsetenv("POSTMORTEM_ENVIRONMENT");
	crash_run_sample(&reps[0].run, "two_threads_crash", versioned);
	report_from_run(&reps[0], "crash");
	crash_run_program(&reps[1].run, crash_sample_path("hang"), hang_args, no_sessions);
	report_from_run(&reps[1], "hang");
	crash_run_program(&reps[2].run, pm_test_build("tests/crash_snapshot"), NULL, no_sessions);
	report_from_run(&reps[2], "snapshot");
	report_converted(&reps[3], pm_test_shared("samples/apple/macsymbolicator__ios-crash-in-ips-format.ips"));
	static const char *const context_args[] = { "context", NULL };
	crash_run_program(&reps[4].run, pm_test_build("tests/crash_words"), context_args, no_sessions);
	report_from_run(&reps[4], "app-context");
	cr_assert_gt(reps[4].twin.annotation_count, 0);
	cr_assert_gt(reps[4].twin.breadcrumb_count, 0);

	char *tmp = pm_test_tmpdir(), *validate;
	cr_assert(asprintf(&validate, "python3 %s %s", pm_test_source("tests/ecosystem/validate_sentry_event.py"),
	                   pm_test_shared("sentry/event.schema.json")) > 0);
	for (size_t i = 0; i < 5; i++) {
		static const http_reply script[] = { { .status = 200, .body = "{\"id\":\"x\"}" }, { 0 } };
		http_server *srv = http_server_start(script);
		char *args = dsn_args(srv), *out;
		cr_assert_eq(upload_cli(reps[i].dir, args, &out), 0, "%s: %s", reps[i].kind, out);
		cr_expect(strstr(out, "sent 1, kept 0, quarantined 0"), "%s", out);
		free(out);
		cr_assert_eq(http_server_count(srv), 1);
		char event_path[4096];
		snprintf(event_path, sizeof event_path, "%s/%s.event.json", tmp, reps[i].kind);
		expect_envelope(&reps[i], http_server_request(srv, 0), event_path);
		char *grown;
		cr_assert(asprintf(&grown, "%s %s", validate, event_path) > 0);
		free(validate);
		validate = grown;
		/* Accepted means gone from pending: a second pass sends nothing. */
		cr_expect_not(upload_exists(upload_path(reps[i].dir, "pending", reps[i].id, ".json")));
		cr_assert_eq(upload_cli(reps[i].dir, args, &out), 0, "%s", out);
		cr_expect(strstr(out, "sent 0, kept 0, quarantined 0"), "%s", out);
		cr_expect_eq(http_server_count(srv), 1, "an accepted report was sent again");
		free(out);
		free(args);
		http_server_stop(srv);
	}
	char *out;
	cr_expect_eq(pm_test_run(validate, &out), 0, "events invalid against Sentry's schema:\n%s", out);
	free(out);
	free(validate);
	for (size_t i = 0; i < 5; i++)
		report_free(&reps[i]);
	upload_remove(tmp);
}

/* One fixture report through a scripted server; the exit status, the output in *out. */
static int
upload_one(const http_reply *script, char **dir, http_server **srv, char **out)
{
	*dir = upload_make_reports(1, 0);
	*srv = http_server_start(script);
	char *args = dsn_args(*srv);
	int rc = upload_cli(*dir, args, out);
	free(args);
	return rc;
}

Test(upload_sentry, a_rate_limit_on_events_ends_the_pass_and_keeps_the_report)
{
	/* The rate limit (an hour) wins over Retry-After (a second): no second try. */
	static const http_reply script[] = {
		{ .status = 429, .headers = "Retry-After: 1\r\nX-Sentry-Rate-Limits: 3600:error;attachment:key\r\n" },
		{ .status = 200 },
		{ 0 },
	};
	char *dir, *out;
	http_server *srv;
	cr_expect_eq(upload_one(script, &dir, &srv, &out), 1, "%s", out);
	cr_expect(strstr(out, "sent 0, kept 1, quarantined 0"), "%s", out);
	cr_expect(strstr(out, "asked to wait 3600 s"), "%s", out);
	cr_expect_eq(http_server_count(srv), 1);
	cr_expect(upload_exists(upload_path(dir, "pending", upload_id(0), ".json")));
	cr_expect(upload_exists(upload_path(dir, "pending", upload_id(0), ".crash")));
	free(out);
	http_server_stop(srv);
	upload_remove(dir);
}

/* Retry-After (one second) is waited for within the pass, also beside a rate limit on other categories. */
Test(upload_sentry, short_waits_are_honoured_within_the_pass)
{
	static const char *const headers[] = {
		"Retry-After: 1\r\n",
		"Retry-After: 1\r\nX-Sentry-Rate-Limits: 3600:transaction:organization\r\n",
	};
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
		const http_reply script[] = { { .status = 429, .headers = headers[i] }, { .status = 200 }, { 0 } };
		char *dir, *out;
		http_server *srv;
		cr_expect_eq(upload_one(script, &dir, &srv, &out), 0, "%s", out);
		cr_expect(strstr(out, "sent 1, kept 0"), "%s", out);
		cr_expect_eq(http_server_count(srv), 2, "%s", headers[i]);
		free(out);
		http_server_stop(srv);
		upload_remove(dir);
	}
}

Test(upload_sentry, a_4xx_quarantines_with_the_servers_reason)
{
	static const http_reply script[] = {
		{ .status = 400, .body = "{\"detail\":\"invalid event envelope for " KEY "\"}" }, { 0 },
	};
	char *dir, *out;
	http_server *srv;
	cr_expect_eq(upload_one(script, &dir, &srv, &out), 1, "%s", out);
	cr_expect(strstr(out, "sent 0, kept 0, quarantined 1"), "%s", out);
	cr_expect_eq(http_server_count(srv), 1, "a rejection is not retried");
	char *reason = pm_test_slurp(upload_path(dir, "quarantine", upload_id(0), ".reason"), NULL);
	cr_assert(reason);
	cr_expect(strstr(reason, "400"), "%s", reason);
	cr_expect(strstr(reason, "invalid event envelope"), "%s", reason);
	cr_expect_null(strstr(reason, KEY), "the DSN key is masked: %s", reason);
	cr_expect(upload_exists(upload_path(dir, "quarantine", upload_id(0), ".json")));
	free(reason);
	free(out);
	http_server_stop(srv);
	upload_remove(dir);
}

Test(upload_sentry, a_refused_connection_keeps_everything)
{
	static const http_reply script[] = { { 0 } };
	http_server *srv = http_server_start(script);
	char *args = dsn_args(srv), *out;
	http_server_stop(srv);
	char *dir = upload_make_reports(2, 0);
	cr_expect_eq(upload_cli(dir, args, &out), 1, "%s", out);
	cr_expect(strstr(out, "sent 0, kept 2, quarantined 0"), "%s", out);
	for (size_t i = 0; i < 2; i++)
		cr_expect(upload_exists(upload_path(dir, "pending", upload_id(i), ".json")));
	free(out);
	free(args);
	upload_remove(dir);
}

Test(upload_sentry, a_bad_dsn_is_bad_usage)
{
	static const char *const cases[] = {
		"--dsn 'not a dsn'",
		"--dsn http://127.0.0.1:9/42",                         /* no key */
		"--dsn http://" KEY "@127.0.0.1:9/project",            /* no project id */
		"--dsn http://" KEY "@crash.example/42",               /* plain HTTP off this machine */
		"--dsn https://" KEY "@crash.example/42 --url https://crash.example/upload",
	};
	char *dir = upload_make_reports(1, 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out;
		cr_expect_eq(upload_cli(dir, cases[i], &out), 2, "'%s': %s", cases[i], out);
		cr_expect_null(strstr(out, KEY), "the key is never logged: %s", out);
		free(out);
	}
	cr_expect(upload_exists(upload_path(dir, "pending", upload_id(0), ".json")));
	upload_remove(dir);
}

/* The environment the event was sent in: --environment, else $POSTMORTEM_ENVIRONMENT, else production. */
static char *
environment_sent(const char *variable, const char *option, int *rc, char **out)
{
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	char *dsn = dsn_args(srv), *args;
	cr_assert(asprintf(&args, "%s%s%s", dsn, option ? " --environment " : "", option ? option : "") > 0);
	if (variable)
		setenv("POSTMORTEM_ENVIRONMENT", variable, 1);
	else
		unsetenv("POSTMORTEM_ENVIRONMENT");
	*rc = upload_cli(dir, args, out);
	char *env = NULL;
	if (http_server_count(srv) == 1) {
		envelope e;
		envelope_parse(http_server_request(srv, 0), &e);
		cJSON *event = cJSON_ParseWithLength(e.items[0].data, e.items[0].len);
		const char *v = str_of(event, "environment");
		env = v ? strdup(v) : NULL;
		cJSON_Delete(event);
		envelope_free(&e);
	}
	free(args);
	free(dsn);
	http_server_stop(srv);
	upload_remove(dir);
	return env;
}

Test(upload_sentry, the_environment_comes_from_the_option_then_the_variable)
{
	static const struct {
		const char *variable, *option, *sent;
	} cases[] = {
		{ NULL, NULL, "production" },
		{ "staging", NULL, "staging" },
		{ "", NULL, "production" },
		{ "staging", "qa-2", "qa-2" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc;
		char *out, *env = environment_sent(cases[i].variable, cases[i].option, &rc, &out);
		cr_expect_eq(rc, 0, "%s", out);
		cr_expect_str_eq(env, cases[i].sent, "case %zu", i);
		free(env);
		free(out);
	}
}

/* Sentry drops such an environment from the event: refused before anything is sent. */
Test(upload_sentry, an_environment_sentry_would_drop_is_bad_usage)
{
	static const char *const bad[] = { "'two words'", "a/b", "None", "''",
		                           "x2345678901234567890123456789012345678901234567890123456789012345" /* 65 */ };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc;
		char *out, *env = environment_sent(NULL, bad[i], &rc, &out);
		cr_expect_eq(rc, 2, "--environment %s: %s", bad[i], out);
		cr_expect(strstr(out, "environment"), "%s", out);
		cr_expect_null(env, "--environment %s was sent", bad[i]);
		free(out);
	}
	int rc;
	char *out, *env = environment_sent("a/b", NULL, &rc, &out);
	cr_expect_eq(rc, 2, "POSTMORTEM_ENVIRONMENT=a/b: %s", out);
	cr_expect_null(env);
	free(out);
}

/* Every annotation in extra; as a tag only one that Sentry keeps as a tag. */
Test(upload_sentry, annotations_become_tags_only_where_sentry_takes_them)
{
	char long_value[202];
	memset(long_value, 'v', sizeof long_value - 1);
	long_value[sizeof long_value - 1] = '\0';
	const pm_kv annotations[] = {
		{ "build", "1234" },
		{ "user.id:x-y_z", "alice" },
		{ "two words", "kept in extra" },
		{ "a/b", "kept in extra" },
		{ "k23456789012345678901234567890123", "a 33-byte key" },
		{ "lines", "one\ntwo" },
		{ "long", long_value },
	};
	const bool tag[] = { true, true, false, false, false, false, false };
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	r.annotations = (pm_kv *)annotations;
	r.annotation_count = sizeof annotations / sizeof annotations[0];
	char *dir = upload_make_reports(0, 0);
	upload_write_report(dir, "annotated", &r);
	r.annotations = NULL;
	r.annotation_count = 0;
	pm_report_free(&r);

	static const http_reply script[] = { { .status = 200 }, { 0 } };
	http_server *srv = http_server_start(script);
	char *args = dsn_args(srv), *out;
	cr_assert_eq(upload_cli(dir, args, &out), 0, "%s", out);
	cr_assert_eq(http_server_count(srv), 1);
	envelope e;
	envelope_parse(http_server_request(srv, 0), &e);
	cJSON *event = cJSON_ParseWithLength(e.items[0].data, e.items[0].len);
	const cJSON *tags = cJSON_GetObjectItem(event, "tags"), *extra = cJSON_GetObjectItem(event, "extra");
	for (size_t i = 0; i < sizeof annotations / sizeof annotations[0]; i++) {
		cr_expect_str_eq(str_of(extra, annotations[i].key), annotations[i].value, "extra.%s", annotations[i].key);
		if (tag[i])
			cr_expect_str_eq(str_of(tags, annotations[i].key), annotations[i].value, "tags.%s", annotations[i].key);
		else
			cr_expect_null(cJSON_GetObjectItem(tags, annotations[i].key), "tags.%s", annotations[i].key);
	}
	cJSON_Delete(event);
	envelope_free(&e);
	free(out);
	free(args);
	http_server_stop(srv);
	upload_remove(dir);
}

/* The preload library (postmortem run) delivers in the background, pm_upload_start with a DSN. */
Test(upload_sentry, the_preload_library_delivers_to_the_dsn_of_the_environment)
{
	static const http_reply script[] = { { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(1, 0);
	http_server *srv = http_server_start(script);
	cr_assert(upload_preloaded_sleep(dir, KEY, srv, 1), "no envelope from the preloaded program");
	const http_request *r = http_server_request(srv, 0);
	cr_expect_str_eq(r->path, "/api/42/envelope/");
	envelope e;
	envelope_parse(r, &e);
	cr_expect_str_eq(str_of(e.items[0].head, "type"), "event");
	envelope_free(&e);
	http_server_stop(srv);
	upload_remove(dir);
}

/* ---- crash groups (docs/sentry.md, "Crash groups") ---------------------------------- */

/* The signature of the fixture report every upload_make_reports copy is. */
static void
fixture_signature(char sig[PM_SIGNATURE_LEN + 1])
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	char title[PM_TITLE_MAX];
	pm_report_group(&r, sig, title);
	pm_report_free(&r);
}

/* The events of a server's requests, in order; how many carry the group's count (*counted,
 * the last such in *with_count, cJSON_Delete it). */
static size_t
events_of(http_server *srv, const char *sig, const char *event_dir, size_t *counted, cJSON **with_count)
{
	size_t n = http_server_count(srv);
	*counted = 0;
	*with_count = NULL;
	for (size_t i = 0; i < n; i++) {
		envelope e;
		envelope_parse(http_server_request(srv, i), &e);
		cJSON *ev = envelope_item_json(&e, 0);
		cr_assert(ev);
		cr_expect_str_eq(str_of(cJSON_GetObjectItem(ev, "tags"), "postmortem.signature"), sig, "event %zu", i);
		cr_expect_null(cJSON_GetObjectItem(ev, "fingerprint"), "Sentry's own grouping unless asked");
		const cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "extra"), "postmortem.crash_group");
		if (g) {
			(*counted)++;
			cJSON_Delete(*with_count);
			*with_count = ev;
			char path[4096];
			snprintf(path, sizeof path, "%s/event-%zu.json", event_dir, i);
			char *text = cJSON_Print(ev);
			FILE *f = fopen(path, "w");
			cr_assert(f && text);
			fputs(text, f);
			fclose(f);
			free(text);
		} else {
			cJSON_Delete(ev);
		}
		envelope_free(&e);
	}
	return n;
}

static int64_t
json_int(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	cr_assert(cJSON_IsNumber(v) || cJSON_IsRaw(v), "%s", key);
	return cJSON_IsRaw(v) ? strtoll(v->valuestring, NULL, 10) : (int64_t)v->valuedouble;
}

/* Ten crashes of one site: storm control keeps six, the six are sent as events, and the
 * latest says how many more crashed; told once, the next storm's latest counts its own. */
Test(upload_sentry, a_storm_sends_the_kept_reports_and_the_count_on_the_latest)
{
	char sig[PM_SIGNATURE_LEN + 1];
	fixture_signature(sig);
	char *dir = upload_make_reports(10, 0), *tmp = pm_test_tmpdir();
	static const http_reply script[] = { { .status = 200, .body = "{}" }, { 0 } };
	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			/* Ten more of the same crash. */
			char *more = upload_make_reports(10, 0), *cmd, *out;
			cr_assert(asprintf(&cmd, "for f in %s/pending/*; do b=$(basename \"$f\"); mv \"$f\" %s/pending/again-$b; done",
			                   more, dir) > 0);
			cr_assert_eq(pm_test_run(cmd, &out), 0, "%s", out);
			free(cmd);
			free(out);
			upload_remove(more);
		}
		http_server *srv = http_server_start(script);
		char *args = dsn_args(srv), *out;
		cr_assert_eq(upload_cli(dir, args, &out), 0, "%s", out);
		cr_expect(strstr(out, "sent 6, kept 0, quarantined 0"), "%s", out);
		free(out);
		size_t counted;
		cJSON *ev;
		cr_expect_eq(events_of(srv, sig, tmp, &counted, &ev), 6, "one event per kept report");
		cr_assert_eq(counted, 1, "the count rides on the latest report alone");
		const cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "extra"), "postmortem.crash_group");
		cr_expect_str_eq(str_of(g, "signature"), sig);
		cr_expect_eq(json_int(g, "not_sent"), 4, "round %d", round);
		cr_expect_eq(json_int(g, "crashes"), 10, "round %d", round);
		cJSON_Delete(ev);
		free(args);
		http_server_stop(srv);
	}
	/* Everything delivered or counted: the group still has every crash. */
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "%s list --group --json --dir %s", pm_test_build("tools/postmortem"), dir) > 0);
	cr_assert_eq(pm_test_run(cmd, &out), 0, "%s", out);
	cJSON *a = cJSON_Parse(out), *g = cJSON_GetArrayItem(a, 0);
	cr_assert_eq(cJSON_GetArraySize(a), 1, "%s", out);
	cr_expect_eq(json_int(g, "count"), 20);
	cr_expect_eq(json_int(g, "dropped"), 8);
	cr_expect_eq(json_int(g, "sent"), 12);
	cr_expect_eq(json_int(g, "reports"), 0);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(g, "latest_id")));
	cJSON_Delete(a);
	free(cmd);
	free(out);
	/* Valid against Sentry's schema, extra and all. */
	cr_assert(asprintf(&cmd, "python3 %s %s %s/event-*.json", pm_test_source("tests/ecosystem/validate_sentry_event.py"),
	                   pm_test_shared("sentry/event.schema.json"), tmp) > 0);
	cr_expect_eq(pm_test_run(cmd, &out), 0, "%s", out);
	free(cmd);
	free(out);
	upload_remove(dir);
	upload_remove(tmp);
}

/* Asked for, the signature is the event's fingerprint: Sentry groups as postmortem does. */
Test(upload_sentry, the_signature_is_the_fingerprint_when_asked)
{
	char sig[PM_SIGNATURE_LEN + 1];
	fixture_signature(sig);
	char *dir = upload_make_reports(1, 0);
	static const http_reply script[] = { { .status = 200, .body = "{}" }, { 0 } };
	http_server *srv = http_server_start(script);
	char *args = dsn_args(srv), *more, *out;
	cr_assert(asprintf(&more, "%s --fingerprint-signature", args) > 0);
	cr_assert_eq(upload_cli(dir, more, &out), 0, "%s", out);
	envelope e;
	envelope_parse(http_server_request(srv, 0), &e);
	cJSON *ev = envelope_item_json(&e, 0);
	const cJSON *fp = cJSON_GetObjectItem(ev, "fingerprint");
	cr_assert_eq(cJSON_GetArraySize(fp), 2);
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 0)), "postmortem.signature");
	cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(fp, 1)), sig);
	cr_expect_str_eq(str_of(cJSON_GetObjectItem(ev, "tags"), "postmortem.signature"), sig);
	cJSON_Delete(ev);
	envelope_free(&e);
	free(out);
	free(more);
	free(args);
	http_server_stop(srv);
	upload_remove(dir);
}
