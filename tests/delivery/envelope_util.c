#include "envelope_util.h"

#include <criterion/criterion.h>
#include <string.h>

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
