/*
 * read_ips.c — the Apple .ips reader's entry: split the metadata line from
 * the body, send JSON bodies to the mapping (read_ips_*.c) and text bodies
 * to pm_read_text, and unwrap Console's "Translated Report" export.
 */
#include "read_ips.h"
#include "model.h"

#include <stdio.h>
#include <string.h>

#include "json.h"

/* Apple's metadata line is a few hundred bytes; a longer "line 1" is something else. */
enum { METADATA_MAX = 64 * 1024 };

static const char BANNER_TITLE[] = "Translated Report (Full Report Below)";
static const char FULL_REPORT_TITLE[] = "Full Report";

size_t
pmi_ips_line_end(const char *data, size_t len, size_t from)
{
	const char *nl = from < len ? memchr(data + from, '\n', len - from) : NULL;
	return nl ? (size_t)(nl - data) : len;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

size_t
pmi_ips_skip_space(const char *data, size_t len, size_t at)
{
	while (at < len && is_space(data[at]))
		at++;
	return at;
}

static uint32_t
line_number(const char *data, size_t at)
{
	uint32_t line = 1;
	for (const char *p = data; (p = memchr(p, '\n', (size_t)(data + at - p))) != NULL; p++)
		line++;
	return line;
}

/* Line [from, end) without trailing white space equals text. */
static bool
line_is(const char *data, size_t from, size_t end, const char *text)
{
	while (end > from && is_space(data[end - 1]))
		end--;
	size_t n = strlen(text);
	return end - from == n && memcmp(data + from, text, n) == 0;
}

static bool
line_is_dashes(const char *data, size_t from, size_t end)
{
	while (end > from && is_space(data[end - 1]))
		end--;
	if (end - from < 3)
		return false;
	for (size_t i = from; i < end; i++)
		if (data[i] != '-')
			return false;
	return true;
}

/* Say which part of the file a JSON parse error is in: "<part>: invalid JSON". */
static void
name_the_part(pm_read_error *err, const char *part)
{
	if (!err)
		return;
	char why[sizeof err->message];
	snprintf(why, sizeof why, "%s", err->message);
	pmi_read_fail(err, err->line, "%s: %s", part, why);
}

cJSON *
pmi_ips_metadata(const char *data, size_t len, size_t *body_at, pm_read_error *err)
{
	size_t end = pmi_ips_line_end(data, len, 0);
	size_t first = pmi_ips_skip_space(data, end, 0);
	if (first == end || data[first] != '{') {
		pmi_read_fail(err, 1, "line 1 is not an .ips metadata object");
		return NULL;
	}
	if (end > METADATA_MAX) {
		pmi_read_fail(err, 1, "line 1 is too long for .ips metadata");
		return NULL;
	}
	cJSON *meta = pmi_json_parse(data, end, 0, err);
	if (!meta) {
		name_the_part(err, ".ips metadata line");
		return NULL;
	}
	if (!cJSON_IsObject(meta) || !pmi_json_get(meta, "bug_type")) {
		pmi_read_fail(err, 1, "line 1 is JSON but has no \"bug_type\": not .ips metadata");
		cJSON_Delete(meta);
		return NULL;
	}
	*body_at = end < len ? end + 1 : len;
	return meta;
}

bool
pmi_ips_is_translated(const char *data, size_t len)
{
	size_t at = pmi_ips_skip_space(data, len, 0);
	size_t end = pmi_ips_line_end(data, len, at);
	if (!line_is_dashes(data, at, end) || end == len)
		return false;
	size_t next = end + 1;
	return line_is(data, next, pmi_ips_line_end(data, len, next), BANNER_TITLE);
}

/* The metadata's bug_type as text ("309"); numbers are accepted too. */
static void
bug_type(const cJSON *meta, char *buf, size_t cap)
{
	const cJSON *bt = pmi_json_get(meta, "bug_type");
	uint64_t n;
	if (cJSON_IsString(bt) && bt->valuestring)
		snprintf(buf, cap, "%s", bt->valuestring);
	else if (pmi_json_u64(bt, &n))
		snprintf(buf, cap, "%llu", (unsigned long long)n);
	else
		snprintf(buf, cap, "?");
}

/* Fill what the body left empty from the metadata line (§11.2). */
static void
fill_from_metadata(const cJSON *meta, pm_report *r)
{
	pm_arena *a = r->arena;
	pm_header *h = &r->header;
	if (!h->process_name)
		h->process_name = pmi_ips_str(a, meta, "app_name");
	if (!h->identifier)
		h->identifier = pmi_ips_str(a, meta, "bundleID");
	if (!h->incident_id)
		h->incident_id = pmi_ips_str(a, meta, "incident_id");
	if (!h->os_version)
		h->os_version = pmi_ips_str(a, meta, "os_version");
	if (!h->time.set)
		pmi_ips_time(meta, "timestamp", &h->time);
	if (!h->version) {
		const char *shortv = pmi_ips_str(a, meta, "app_version");
		const char *build = pmi_ips_str(a, meta, "build_version");
		if (shortv && build)
			h->version = pmi_ips_printf(a, "%s (%s)", shortv, build);
		else
			h->version = shortv ? shortv : build;
	}
	if (r->os == PM_OS_UNKNOWN)
		r->os = PM_OS_DARWIN;
}

static pm_err
finish(const cJSON *meta, pm_format f, pm_report *r, pm_read_error *err)
{
	if (meta)
		fill_from_metadata(meta, r);
	r->format = f;
	if (pmi_arena_exhausted(r->arena)) {
		pmi_read_fail(err, 0, "out of memory while reading the report");
		return PM_E_NOMEM;
	}
	return PM_OK;
}

static bool
has_crash_members(const cJSON *body)
{
	static const char *const keys[] = { "exception", "threads", "procName", "incident" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (pmi_json_get(body, keys[i]))
			return true;
	return false;
}

/* A parsed bug_type 309 body; `line` is where it starts, for messages. */
static pm_err
map_body(const cJSON *body, uint32_t line, const cJSON *meta, pm_report *r, pm_read_error *err)
{
	if (!cJSON_IsObject(body))
		return pmi_read_fail(err, line, "the .ips body is not a JSON object");
	if (!has_crash_members(body))
		return pmi_read_fail(err, line, "the .ips body has none of exception, threads, procName, incident");
	r->os = PM_OS_DARWIN;
	pmi_ips_header(body, r);
	pmi_ips_exception(body, r);
	pmi_ips_images(body, r);
	pmi_ips_threads(body, r);
	return finish(meta, PM_FORMAT_IPS, r, err);
}

/* Text in data[at, end): the text reader does the work; its line numbers are shifted to ours. */
static pm_err
read_text_part(const char *data, size_t at, size_t end, const cJSON *meta, pm_format f,
               pm_report *r, pm_read_error *err)
{
	pm_err e = pm_read_text(data + at, end - at, r, err);
	if (e != PM_OK) {
		if (err && err->line)
			err->line += line_number(data, at) - 1;
		return e;
	}
	return finish(meta, f, r, err);
}

static pm_err
read_json_part(const char *data, size_t at, size_t end, const cJSON *meta, pm_report *r,
               pm_read_error *err)
{
	char bt[32];
	bug_type(meta, bt, sizeof bt);
	if (strcmp(bt, "309") != 0) {
		pmi_read_fail(err, 1, "bug_type %s is not a crash report (only 309 has a JSON crash body)", bt);
		return PM_E_UNSUPPORTED;
	}
	uint32_t line = line_number(data, at);
	cJSON *body = pmi_json_parse(data + at, end - at, line - 1, err);
	if (!body) {
		name_the_part(err, ".ips body");
		return PM_E_FORMAT;
	}
	pm_err e = map_body(body, line, meta, r, err);
	cJSON_Delete(body);
	return e;
}

/* Everything after the metadata line: JSON body or text. */
static pm_err
read_after_metadata(const char *data, size_t len, size_t body_at, const cJSON *meta,
                    pm_report *r, pm_read_error *err)
{
	size_t first = pmi_ips_skip_space(data, len, body_at);
	if (first == len)
		return pmi_read_fail(err, line_number(data, body_at), "the report body after the metadata line is missing");
	if (data[first] == '{')
		return read_json_part(data, body_at, len, meta, r, err);
	return read_text_part(data, body_at, len, meta, PM_FORMAT_IPS_TEXT, r, err);
}

/* End (one past the closing brace) of the JSON object opening at data[at]; 0 if unclosed. */
static size_t
object_end(const char *data, size_t len, size_t at)
{
	size_t depth = 0;
	bool in_str = false;
	for (size_t i = at; i < len; i++) {
		char c = data[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

/*
 * Start of the line after "-----" / "Full Report" / "-----", or 0.  *text_end
 * gets the start of that first dashes line: where the translated text stops.
 */
static size_t
find_full_report(const char *data, size_t len, size_t from, size_t *text_end)
{
	size_t prev = len, at = from;
	while (at < len) {
		size_t end = pmi_ips_line_end(data, len, at);
		if (prev < len && end < len && line_is(data, at, end, FULL_REPORT_TITLE) &&
		    line_is_dashes(data, prev, at - 1)) {
			size_t next = end + 1, next_end = pmi_ips_line_end(data, len, next);
			if (line_is_dashes(data, next, next_end)) {
				*text_end = prev;
				return next_end < len ? next_end + 1 : len;
			}
		}
		prev = at;
		at = end + 1;
	}
	return 0;
}

/* The raw .ips after the Full Report banner; false when it is not usable JSON. */
static bool
try_full_report(const char *data, size_t len, size_t at, pm_report *r, pm_err *e, pm_read_error *err)
{
	at = pmi_ips_skip_space(data, len, at);
	if (at == len || data[at] != '{')
		return false;
	size_t rel = 0, body_at = at;
	cJSON *meta = pmi_ips_metadata(data + at, len - at, &rel, NULL);
	if (meta)
		body_at = pmi_ips_skip_space(data, len, at + rel);
	size_t end = body_at < len && data[body_at] == '{' ? object_end(data, len, body_at) : 0;
	cJSON *body = end ? pmi_json_parse(data + body_at, end - body_at, 0, NULL) : NULL;
	bool ok = cJSON_IsObject(body) && has_crash_members(body);
	if (ok)
		*e = map_body(body, line_number(data, body_at), meta, r, err);
	cJSON_Delete(body);
	cJSON_Delete(meta);
	return ok;
}

static pm_err
read_translated(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	/* Skip the three banner lines. */
	size_t at = pmi_ips_skip_space(data, len, 0);
	for (int i = 0; i < 3 && at < len; i++)
		at = pmi_ips_line_end(data, len, at) + 1;
	at = at < len ? at : len;
	size_t text_end = len;
	size_t full = find_full_report(data, len, at, &text_end);
	pm_err e = PM_OK;
	if (full && try_full_report(data, len, full, r, &e, err)) {
		if (e == PM_OK)
			r->format = PM_FORMAT_TRANSLATED;
		return e;
	}
	return read_text_part(data, at, text_end, NULL, PM_FORMAT_TRANSLATED, r, err);
}

pm_err
pm_read_ips(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	pm_err checked = pmi_read_check_input(data, len, r, err);
	if (checked != PM_OK)
		return checked;
	if (pmi_ips_is_translated(data, len))
		return read_translated(data, len, r, err);
	size_t body_at = 0;
	cJSON *meta = pmi_ips_metadata(data, len, &body_at, err);
	if (!meta)
		return PM_E_FORMAT;
	pm_err e = read_after_metadata(data, len, body_at, meta, r, err);
	cJSON_Delete(meta);
	return e;
}
