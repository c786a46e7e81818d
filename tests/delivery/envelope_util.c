#include "envelope_util.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
envelope_parse(const http_request *r, envelope *e)
{
	memset(e, 0, sizeof *e);
	const char *p = r->body, *end = r->body + r->body_len;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	cr_assert(nl, "no envelope header line");
	cr_assert(e->head = cJSON_ParseWithLength(p, (size_t)(nl - p)));
	for (p = nl + 1; p < end; e->count++) {
		cr_assert_lt(e->count, ENVELOPE_ITEMS_MAX);
		item *it = &e->items[e->count];
		nl = memchr(p, '\n', (size_t)(end - p));
		cr_assert(nl, "an item header without its line end");
		cr_assert(it->head = cJSON_ParseWithLength(p, (size_t)(nl - p)));
		const cJSON *len = cJSON_GetObjectItem(it->head, "length");
		cr_assert(cJSON_IsNumber(len), "item without a length");
		it->data = nl + 1;
		it->len = (size_t)len->valuedouble;
		cr_assert_leq(it->len, (size_t)(end - it->data));
		p = it->data + it->len;
		cr_assert(p < end && *p == '\n', "an item's payload is not followed by a newline");
		p++;
	}
}

void
envelope_free(envelope *e)
{
	cJSON_Delete(e->head);
	for (size_t i = 0; i < e->count; i++)
		cJSON_Delete(e->items[i].head);
}

const char *
str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *
envelope_item_json(const envelope *e, size_t i)
{
	cJSON *o = cJSON_ParseWithLength(e->items[i].data, e->items[i].len);
	cr_assert(o, "item %zu is not JSON", i);
	return o;
}

static bool
rfc3339(const char *s)
{
	struct tm tm;
	const char *rest = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	return rest && rest[0] == '.' && strlen(rest) == 8 && rest[7] == 'Z';
}

double
rfc3339_seconds(const char *s)
{
	struct tm tm = { 0 };
	const char *rest = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	cr_assert(rest && *rest == '.', "not RFC 3339 with a fraction: %s", s ? s : "(none)");
	return (double)timegm(&tm) + strtod(rest, NULL);
}

void
expect_session_update(const cJSON *u, const char *environment, const char *also)
{
	static const char *const documented[] = { "sid", "did", "seq", "timestamp", "started", "init", "duration",
	                                           "status", "errors", "abnormal_mechanism", "attrs" };
	const cJSON *m;
	cJSON_ArrayForEach(m, u) {
		bool known = also && strcmp(m->string, also) == 0;
		for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++)
			known |= strcmp(m->string, documented[i]) == 0;
		cr_expect(known, "undocumented member %s", m->string);
	}
	const char *sid = str_of(u, "sid");
	cr_assert(sid && strlen(sid) == 36 && sid[14] == '4' && strchr("89ab", sid[19]), "sid %s", sid ? sid : "none");
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(u, "init")), "the first update of the session");
	cr_expect(rfc3339(str_of(u, "started")), "started %s", str_of(u, "started"));
	cr_expect(rfc3339(str_of(u, "timestamp")), "timestamp %s", str_of(u, "timestamp"));
	cr_expect_leq(rfc3339_seconds(str_of(u, "started")), rfc3339_seconds(str_of(u, "timestamp")), "ended before it began");
	const char *status = str_of(u, "status");
	cr_expect(status && (!strcmp(status, "exited") || !strcmp(status, "crashed") || !strcmp(status, "abnormal")),
	          "status %s", status ? status : "none");
	const cJSON *errors = cJSON_GetObjectItem(u, "errors"), *duration = cJSON_GetObjectItem(u, "duration");
	cr_expect(cJSON_IsNumber(errors) && errors->valuedouble >= 0 && errors->valuedouble == (int)errors->valuedouble);
	cr_expect(!duration || (cJSON_IsNumber(duration) && duration->valuedouble >= 0));
	const cJSON *attrs = cJSON_GetObjectItem(u, "attrs");
	cr_assert(cJSON_IsObject(attrs));
	cJSON_ArrayForEach(m, attrs)
		cr_expect(!strcmp(m->string, "release") || !strcmp(m->string, "environment") ||
		          !strcmp(m->string, "ip_address") || !strcmp(m->string, "user_agent"),
		          "undocumented attribute %s", m->string);
	cr_expect_not_null(str_of(attrs, "release"), "attrs.release is required");
	cr_expect_str_eq(str_of(attrs, "environment"), environment);
}
