/*
 * envelope_util.h — Sentry envelopes as the test servers received them: the
 * framing checked, the header and each item's header parsed.
 */
#ifndef PM_TESTS_ENVELOPE_UTIL_H
#define PM_TESTS_ENVELOPE_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "http_server.h"

typedef struct item {
	cJSON *head;
	const char *data;
	size_t len;
} item;

enum { ENVELOPE_ITEMS_MAX = 128 };

typedef struct envelope {
	cJSON *head;
	item items[ENVELOPE_ITEMS_MAX];
	size_t count;
} envelope;

/* Sentry's framing: a header line, then per item a header line, `length` bytes and a newline.
 * Fails the test when the body is not framed so. */
void envelope_parse(const http_request *r, envelope *e);
void envelope_free(envelope *e);
/* The string member key of o, or NULL. */
const char *str_of(const cJSON *o, const char *key);
/* The payload of item i, parsed (cJSON_Delete it). */
cJSON *envelope_item_json(const envelope *e, size_t i);
/* An RFC 3339 time with a fraction, in seconds since the epoch (fails the test otherwise). */
double rfc3339_seconds(const char *s);
/* u is a session update as Sentry documents it (develop.sentry.dev, "Sessions"): its members
 * and attrs only those documented (and `also`, when not NULL: Spotlight adds "type"), of
 * their types, init true, a version 4 sid, started not after timestamp, attrs.release
 * there and attrs.environment `environment`. */
void expect_session_update(const cJSON *u, const char *environment, const char *also);

#endif
