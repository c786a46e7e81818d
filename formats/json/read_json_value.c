/*
 * read_json_value.c — typed access to the JSON twin's values, with the reader's
 * hostile-input policy (see read_json.h) and messages that name the member.
 */
#include "model.h"
#include "read_json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "json_util.h"

/* Account for n bytes just printed at the end of the path; a path too long stays cut. */
static size_t
grow_path(pm_jr *c, size_t mark, int n)
{
	size_t room = sizeof c->path - mark;
	if (n > 0)
		c->path_len = mark + ((size_t)n < room ? (size_t)n : room - 1);
	return mark;
}

size_t
pmi_jr_enter(pm_jr *c, const char *key)
{
	size_t at = c->path_len;
	return grow_path(c, at, snprintf(c->path + at, sizeof c->path - at, at ? ".%s" : "%s", key));
}

size_t
pmi_jr_enter_index(pm_jr *c, uint32_t index)
{
	size_t at = c->path_len;
	return grow_path(c, at, snprintf(c->path + at, sizeof c->path - at, "[%" PRIu32 "]", index));
}

void
pmi_jr_leave(pm_jr *c, size_t mark)
{
	c->path_len = mark;
	c->path[mark] = '\0';
}

void
pmi_jr_fail(pm_jr *c, const char *key, const char *fmt, ...)
{
	if (c->rc != PM_OK)
		return;
	char what[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	const char *dot = c->path_len && key ? "." : "";
	c->rc = pmi_read_fail(c->err, 0, "%s%s%s: %s", c->path, dot, key ? key : "", what);
}

void
pmi_jr_nomem(pm_jr *c)
{
	if (c->rc != PM_OK)
		return;
	pmi_read_fail(c->err, 0, "out of memory");
	c->rc = PM_E_NOMEM;
}

const cJSON *
pmi_jr_get(pm_jr *c, const cJSON *obj, const char *key)
{
	if (c->rc != PM_OK)
		return NULL;
	const cJSON *it = key ? pmi_json_get(obj, key) : obj;
	return it && !cJSON_IsNull(it) ? it : NULL;
}

const cJSON *
pmi_jr_object(pm_jr *c, const cJSON *obj, const char *key)
{
	const cJSON *it = pmi_jr_get(c, obj, key);
	if (it && !cJSON_IsObject(it)) {
		pmi_jr_fail(c, key, "expected an object");
		return NULL;
	}
	return it;
}

const char *
pmi_jr_text(pm_jr *c, const cJSON *obj, const char *key)
{
	const cJSON *it = pmi_jr_get(c, obj, key);
	if (it && !pmi_json_is_text(it)) {
		pmi_jr_fail(c, key, "expected a string");
		return NULL;
	}
	return it ? pmi_json_text(it) : NULL;
}

const char *
pmi_jr_str(pm_jr *c, const cJSON *obj, const char *key)
{
	const char *s = pmi_jr_text(c, obj, key);
	if (!s)
		return NULL;
	const char *copy = pmi_arena_strdup(c->r->arena, s);
	if (!copy)
		pmi_jr_nomem(c);
	return copy;
}

bool
pmi_jr_flag(pm_jr *c, const cJSON *obj, const char *key)
{
	const cJSON *it = pmi_jr_get(c, obj, key);
	bool v = false;
	if (it && !pmi_json_bool(it, &v))
		pmi_jr_fail(c, key, "expected true or false");
	return v;
}

bool
pmi_jr_range(pm_jr *c, const cJSON *obj, const char *key, int64_t min, int64_t max, int64_t *out)
{
	const cJSON *it = pmi_jr_get(c, obj, key);
	int64_t v;
	if (!it)
		return false;
	if (!pmi_json_i64(it, &v) || v < min || v > max) {
		pmi_jr_fail(c, key, "expected an integer from %" PRId64 " to %" PRId64, min, max);
		return false;
	}
	*out = v;
	return true;
}

bool
pmi_jr_u64(pm_jr *c, const cJSON *obj, const char *key, uint64_t *out)
{
	const cJSON *it = pmi_jr_get(c, obj, key);
	if (!it)
		return false;
	if (!pmi_json_u64(it, out)) {
		pmi_jr_fail(c, key, "expected an integer from 0 to %" PRIu64, UINT64_MAX);
		return false;
	}
	return true;
}

bool
pmi_jr_u32(pm_jr *c, const cJSON *obj, const char *key, uint32_t *out)
{
	int64_t v;
	if (!pmi_jr_range(c, obj, key, 0, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

bool
pmi_jr_i64(pm_jr *c, const cJSON *obj, const char *key, int64_t *out)
{
	return pmi_jr_range(c, obj, key, INT64_MIN, INT64_MAX, out);
}

bool
pmi_jr_i32(pm_jr *c, const cJSON *obj, const char *key, int32_t *out)
{
	int64_t v;
	if (!pmi_jr_range(c, obj, key, INT32_MIN, INT32_MAX, &v))
		return false;
	*out = (int32_t)v;
	return true;
}

uint8_t
pmi_jr_enum(pm_jr *c, const cJSON *obj, const char *key, const pm_json_names *names)
{
	const char *s = pmi_jr_text(c, obj, key);
	for (unsigned v = 0; s && v < names->count; v++)
		if (names->name[v] && strcmp(names->name[v], s) == 0)
			return (uint8_t)v;
	return 0;
}

void *
pmi_jr_list(pm_jr *c, const cJSON *obj, const char *key, uint32_t cap, size_t size,
           pm_jr_elem_fn *fn, uint32_t *count, bool *truncated)
{
	const cJSON *arr = pmi_jr_get(c, obj, key);
	if (!arr)
		return NULL;
	if (!cJSON_IsArray(arr)) {
		pmi_jr_fail(c, key, "expected an array");
		return NULL;
	}
	uint32_t n = 0;
	const cJSON *it = arr->child;
	for (; it && n < cap; it = it->next)
		n++;
	if (it && truncated)
		*truncated = true;
	if (n == 0)
		return NULL;
	char *dst = pmi_arena_alloc(c->r->arena, n * size, _Alignof(max_align_t));
	if (!dst) {
		pmi_jr_nomem(c);
		return NULL;
	}
	size_t mark = pmi_jr_enter(c, key);
	it = arr->child;
	for (uint32_t i = 0; i < n && c->rc == PM_OK; i++, it = it->next) {
		size_t m = pmi_jr_enter_index(c, i);
		c->index = i;
		fn(c, it, dst + i * size);
		pmi_jr_leave(c, m);
	}
	pmi_jr_leave(c, mark);
	*count = n;
	return dst;
}

void
pmi_jr_string_elem(pm_jr *c, const cJSON *it, void *dst)
{
	*(const char **)dst = pmi_jr_str(c, it, NULL);
}
