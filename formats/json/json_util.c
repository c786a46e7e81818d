/*
 * json_util.c — exact-integer cJSON parsing and typed getters (see json_util.h).
 */
#include "json_util.h"
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integers that cJSON's double could round are carried as strings that start
 * with this byte (written as \u0001); a real string that starts with it gets
 * it doubled.  So neither can be mistaken for the other. */
enum { BIG_DIGITS = 16, BIG_MARK = 0x01 };
/* cJSON allocates about 64 bytes per value: refuse documents that would
 * need gigabytes before parsing them. */
enum { MAX_VALUES = 4 * 1000 * 1000 };

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t
big_integer_end(const char *s, size_t n, size_t i)
{
	size_t j = i + (s[i] == '-');
	while (j < n && is_digit(s[j]))
		j++;
	bool big = j - i >= BIG_DIGITS && (j == n || (s[j] != '.' && s[j] != 'e' && s[j] != 'E'));
	return big ? j : 0;
}

/* Does the string literal whose content starts at s[i] begin with the mark? */
static bool
starts_with_mark(const char *s, size_t n, size_t i)
{
	if (i < n && s[i] == BIG_MARK)
		return true;
	return n - i >= 6 && s[i] == '\\' && s[i + 1] == 'u' && strncmp(s + i + 2, "000", 3) == 0 &&
	       s[i + 5] == '1';
}

static void
emit(char *out, size_t *o, const char *p, size_t k)
{
	if (out)
		memcpy(out + *o, p, k);
	*o += k;
}

/*
 * Rewrite the document for cJSON (out == NULL: only measure it): integer
 * literals of BIG_DIGITS+ digits become "\u0001<digits>", and a string that
 * itself starts with \u0001 gets one more, so the two never meet.  Counts
 * the values on the way.
 */
static size_t
rewrite(const char *s, size_t n, char *out, size_t *values)
{
	static const char mark[] = "\\u0001";
	size_t o = 0;
	bool in_str = false;
	*values = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			emit(out, &o, &s[i], 1);
			if (c == '\\' && i + 1 < n)
				emit(out, &o, &s[++i], 1);
			else if (c == '"')
				in_str = false;
			continue;
		}
		size_t end = (is_digit(c) || c == '-') ? big_integer_end(s, n, i) : 0;
		if (end) {
			emit(out, &o, "\"", 1);
			emit(out, &o, mark, sizeof mark - 1);
			emit(out, &o, s + i, end - i);
			emit(out, &o, "\"", 1);
			i = end - 1;
			continue;
		}
		emit(out, &o, &c, 1);
		if (c == '"') {
			in_str = true;
			if (starts_with_mark(s, n, i + 1))
				emit(out, &o, mark, sizeof mark - 1);
		} else if (c == ',' || c == '[' || c == '{') {
			(*values)++;
		}
	}
	return o;
}

static char *
prepare(const char *s, size_t n, size_t *out_len, size_t *values)
{
	size_t need = rewrite(s, n, NULL, values);
	if (*values > MAX_VALUES)
		return NULL;
	char *out = malloc(need + 1);
	if (!out)
		return NULL;
	rewrite(s, n, out, values);
	out[need] = '\0';
	*out_len = need;
	return out;
}

static uint32_t
line_of(const char *s, size_t upto)
{
	uint32_t line = 1;
	for (size_t i = 0; i < upto; i++)
		if (s[i] == '\n')
			line++;
	return line;
}

cJSON *
pmi_json_parse(const char *data, size_t len, uint32_t line_base, pm_read_error *err)
{
	size_t n = 0, values = 0;
	char *text = prepare(data, len, &n, &values);
	if (!text) {
		if (values > MAX_VALUES)
			pmi_read_fail(err, 0, "the JSON has more than %d values", MAX_VALUES);
		else
			pmi_read_fail(err, 0, "out of memory");
		return NULL;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, n, &end, false);
	if (!root) {
		size_t at = end && end >= text && end <= text + n ? (size_t)(end - text) : 0;
		pmi_read_fail(err, line_base + line_of(text, at), "invalid JSON");
	} else {
		/* Only white space may follow the document. */
		size_t at = (size_t)(end - text);
		while (at < n && (text[at] == ' ' || text[at] == '\n' || text[at] == '\r' || text[at] == '\t'))
			at++;
		if (at < n) {
			pmi_read_fail(err, line_base + line_of(text, at), "unexpected data after the JSON document");
			cJSON_Delete(root);
			root = NULL;
		}
	}
	free(text);
	return root;
}

const cJSON *
pmi_json_get(const cJSON *obj, const char *key)
{
	if (!cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

bool
pmi_json_u64(const cJSON *it, uint64_t *out)
{
	if (cJSON_IsNumber(it)) {
		double d = it->valuedouble;
		if (!(d >= 0 && d <= 9007199254740992.0) || d != (double)(uint64_t)d)
			return false;
		*out = (uint64_t)d;
		return true;
	}
	if (cJSON_IsString(it) && it->valuestring && it->valuestring[0] == BIG_MARK &&
	    is_digit(it->valuestring[1])) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(it->valuestring + 1, &end, 10);
		if (errno || *end)
			return false;
		*out = v;
		return true;
	}
	return false;
}

bool
pmi_json_i64(const cJSON *it, int64_t *out)
{
	if (cJSON_IsNumber(it)) {
		double d = it->valuedouble;
		if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != (double)(int64_t)d)
			return false;
		*out = (int64_t)d;
		return true;
	}
	if (cJSON_IsString(it) && it->valuestring && it->valuestring[0] == BIG_MARK) {
		char *end;
		errno = 0;
		long long v = strtoll(it->valuestring + 1, &end, 10);
		if (errno || *end || end == it->valuestring + 1)
			return false;
		*out = v;
		return true;
	}
	return false;
}

bool
pmi_json_bool(const cJSON *it, bool *out)
{
	if (cJSON_IsBool(it)) {
		*out = cJSON_IsTrue(it);
		return true;
	}
	if (cJSON_IsNumber(it)) {
		*out = it->valuedouble != 0;
		return true;
	}
	return false;
}

bool
pmi_json_is_text(const cJSON *it)
{
	return cJSON_IsString(it) && it->valuestring &&
	       (it->valuestring[0] != BIG_MARK || it->valuestring[1] == BIG_MARK);
}

const char *
pmi_json_text(const cJSON *it)
{
	if (!pmi_json_is_text(it))
		return NULL;
	return it->valuestring + (it->valuestring[0] == BIG_MARK);
}

/* Names are strings too: the rewrite doubled a leading mark in them as well. */
const char *
pmi_json_key(const cJSON *it)
{
	if (!it->string)
		return "";
	return it->string + (it->string[0] == BIG_MARK);
}

const char *
pmi_json_str(pm_arena *a, const cJSON *it)
{
	return pmi_arena_strdup(a, pmi_json_text(it));
}

bool
pmi_json_get_u64(const cJSON *obj, const char *key, uint64_t *out)
{
	return pmi_json_u64(pmi_json_get(obj, key), out);
}

bool
pmi_json_get_i64(const cJSON *obj, const char *key, int64_t *out)
{
	return pmi_json_i64(pmi_json_get(obj, key), out);
}

bool
pmi_json_get_bool(const cJSON *obj, const char *key, bool *out)
{
	return pmi_json_bool(pmi_json_get(obj, key), out);
}

const char *
pmi_json_get_str(pm_arena *a, const cJSON *obj, const char *key)
{
	return pmi_json_str(a, pmi_json_get(obj, key));
}
