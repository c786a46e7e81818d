/*
 * spotlight_util.h — Spotlight, Sentry's development receiver, as the server
 * of a test's DSN, and its command line and UI as the judges of what arrived
 * (tests/ecosystem/spotlight: the npm packages, the loopback-only launcher and
 * the headless-Chromium page reader).
 *
 * Every process started here runs in a process group of its own, is killed
 * with it by spotlight_stop_all (a test's .fini, so failed assertions too) and
 * dies with the test's worker (PR_SET_PDEATHSIG) if that is killed first.
 */
#ifndef PM_TESTS_SPOTLIGHT_UTIL_H
#define PM_TESTS_SPOTLIGHT_UTIL_H

#include <cjson/cJSON.h>
#include <stdbool.h>

typedef struct spotlight {
	int pid;            /* the server's process (and group) */
	unsigned port;      /* where it listens, on 127.0.0.1 */
	char *dir;          /* its working directory and log (spotlight.log) */
} spotlight;

/* Start a server on a free loopback port; fails the test (with its log) when none comes up in 30 s. */
void spotlight_start(spotlight *s);
/* Kill it and remove its directory. */
void spotlight_stop(spotlight *s);
/* Kill every process this file started that is still running. */
void spotlight_stop_all(void);
/* "--dsn http://<key>@127.0.0.1:<port>/<project>" (malloc'd). */
char *spotlight_dsn_args(const spotlight *s, const char *key, unsigned project);

/*
 * Run `spotlight ARGS... -p <port>` (args NULL-terminated, e.g. "tail",
 * "errors", "-f", "json") against s, reading its standard output until
 * done(out, ctx) says it has all it needs, or 30 s have passed; it is then
 * killed.  The output (malloc'd, NUL-terminated).
 */
char *spotlight_cli(const spotlight *s, const char *const *args, bool (*done)(const char *out, void *ctx), void *ctx);

/*
 * What Spotlight received, as its /stream replays it (Server-Sent Events,
 * each `event: application/x-sentry-envelope` with `data:` the parsed
 * envelope [header, [[item header, payload], ...]]), read until
 * done(envelopes, ctx) says it has all it needs or 30 s have passed: a cJSON
 * array of the envelopes (cJSON_Delete it).  Sessions are read here:
 * `spotlight tail` has no type for them.
 */
cJSON *spotlight_stream(const spotlight *s, bool (*done)(const cJSON *envelopes, void *ctx), void *ctx);

/*
 * The page of error event_id (32 hex digits) as Spotlight's UI shows it in
 * headless Chromium (error_page.mjs): its JSON line (malloc'd), or NULL with
 * the reason in *why (malloc'd).  The page is saved as `screenshot` (may be NULL).
 */
char *spotlight_error_page(const spotlight *s, const char *event_id, const char *screenshot, char **why);

#endif
