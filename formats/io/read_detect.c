/*
 * read_detect.c — tell the report formats apart by content (never by file
 * name), read a report of any format, and load one from a file.
 */
#include "read_ips.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

enum {
	SCHEMA_SCAN = 512,     /* bytes searched for "schema":"postmortem" */
	TEXT_SCAN = 8 * 1024,  /* bytes searched for an Apple text header line */
	READ_CHUNK = 64 * 1024,
};

static bool
has_prefix(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(p, prefix, k) == 0;
}

/* `"schema"`, optional white space, `:`, optional white space, `"postmortem"` at data[at]. */
static bool
schema_member_at(const char *data, size_t len, size_t at)
{
	static const char key[] = "\"schema\"";
	if (!has_prefix(data + at, len - at, key))
		return false;
	at = pmi_ips_skip_space(data, len, at + sizeof key - 1);
	if (at == len || data[at] != ':')
		return false;
	at = pmi_ips_skip_space(data, len, at + 1);
	return has_prefix(data + at, len - at, "\"postmortem\"");
}

/* postmortem's JSON twin: "schema" is the first member, or says "postmortem" near the start. */
static bool
is_json_twin(const char *data, size_t len)
{
	size_t at = pmi_ips_skip_space(data, len, 0);
	if (at == len || data[at] != '{')
		return false;
	size_t first = pmi_ips_skip_space(data, len, at + 1);
	if (has_prefix(data + first, len - first, "\"schema\""))
		return true;
	size_t scan = len < SCHEMA_SCAN ? len : SCHEMA_SCAN;
	for (size_t i = at; i < scan; i++)
		if (data[i] == '"' && schema_member_at(data, scan, i))
			return true;
	return false;
}

static pm_format
ips_kind(const char *data, size_t len)
{
	size_t body_at;
	cJSON *meta = pmi_ips_metadata(data, len, &body_at, NULL);
	if (!meta)
		return PM_FORMAT_UNKNOWN;
	cJSON_Delete(meta);
	size_t first = pmi_ips_skip_space(data, len, body_at);
	return first == len || data[first] == '{' ? PM_FORMAT_IPS : PM_FORMAT_IPS_TEXT;
}

/* A line of Apple-style text within the first few KB. */
static bool
is_apple_text(const char *data, size_t len)
{
	static const char *const starts[] = {
		"Incident Identifier:", "Process:", "Hardware Model:", "Exception Type:", "Thread 0",
	};
	size_t scan = len < TEXT_SCAN ? len : TEXT_SCAN;
	for (size_t at = 0; at < scan; at = pmi_ips_line_end(data, len, at) + 1)
		for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
			if (has_prefix(data + at, len - at, starts[i]))
				return true;
	return false;
}

pm_format
pm_detect_format(const char *data, size_t len)
{
	if (!data || len == 0)
		return PM_FORMAT_UNKNOWN;
	if (has_prefix(data, len, "MDMP"))
		return PM_FORMAT_MINIDUMP;
	if (is_json_twin(data, len))
		return PM_FORMAT_JSON;
	pm_format f = ips_kind(data, len);
	if (f != PM_FORMAT_UNKNOWN)
		return f;
	if (pmi_ips_is_translated(data, len))
		return PM_FORMAT_TRANSLATED;
	return is_apple_text(data, len) ? PM_FORMAT_TEXT : PM_FORMAT_UNKNOWN;
}

const char *
pm_format_name(pm_format f)
{
	switch (f) {
	case PM_FORMAT_UNKNOWN: return "unknown";
	case PM_FORMAT_JSON: return "json";
	case PM_FORMAT_TEXT: return "crash";
	case PM_FORMAT_IPS: return "ips";
	case PM_FORMAT_IPS_TEXT: return "ips-text";
	case PM_FORMAT_TRANSLATED: return "translated";
	case PM_FORMAT_MINIDUMP: return "minidump";
	}
	return "unknown";
}

pm_err
pm_read_report(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	pm_err checked = pmi_read_check_input(data, len, r, err);
	if (checked != PM_OK)
		return checked;
	if (len == 0)
		return pmi_read_fail(err, 0, "not a crash report: the input is empty");
	pm_format f = pm_detect_format(data, len);
	pm_err e;
	switch (f) {
	case PM_FORMAT_JSON:
		e = pm_read_json(data, len, r, err);
		break;
	case PM_FORMAT_TEXT:
		e = pm_read_text(data, len, r, err);
		break;
	case PM_FORMAT_IPS:
	case PM_FORMAT_IPS_TEXT:
	case PM_FORMAT_TRANSLATED:
		e = pm_read_ips(data, len, r, err);
		break;
	case PM_FORMAT_MINIDUMP:
		e = pm_read_minidump(data, len, r, err);
		break;
	default:
		return pmi_read_fail(err, 1, "not a crash report: no Apple header line, .ips metadata "
		                    "or postmortem JSON found");
	}
	if (e == PM_OK && r->format == PM_FORMAT_UNKNOWN)
		r->format = (uint8_t)f;
	return e;
}

/* Whole file into a malloc'd buffer; at most PM_READ_MAX_BYTES. */
static pm_err
slurp(int fd, char **out, size_t *out_len, pm_read_error *err)
{
	size_t cap = READ_CHUNK, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			if (cap > PM_READ_MAX_BYTES) {
				free(buf);
				pmi_read_fail(err, 0, "file is larger than the %u-byte limit", PM_READ_MAX_BYTES);
				return PM_E_LIMIT;
			}
			/* One byte past the limit is enough to know the file is too large. */
			size_t want = cap * 2 > (size_t)PM_READ_MAX_BYTES + 1 ? (size_t)PM_READ_MAX_BYTES + 1 : cap * 2;
			char *bigger = realloc(buf, want);
			if (!bigger)
				break;
			buf = bigger;
			cap = want;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			free(buf);
			pmi_read_fail(err, 0, "cannot read: %s", strerror(e));
			return PM_E_IO;
		}
		if (got == 0) {
			*out = buf;
			*out_len = n;
			return PM_OK;
		}
		n += (size_t)got;
	}
	free(buf);
	pmi_read_fail(err, 0, "out of memory reading the file");
	return PM_E_NOMEM;
}

static pm_err
open_error(int e, pm_read_error *err)
{
	pmi_read_fail(err, 0, "cannot open: %s", strerror(e));
	return e == ENOENT || e == ENOTDIR ? PM_E_NOTFOUND : PM_E_IO;
}

pm_err
pm_read_report_file(const char *path, pm_report *r, pm_read_error *err)
{
	if (!path || !r) {
		pmi_read_fail(err, 0, "no file name");
		return PM_E_INVAL;
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a writer that never comes. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return open_error(errno, err);
	struct stat st;
	pm_err e = PM_OK;
	if (fstat(fd, &st) != 0) {
		e = open_error(errno, err);
	} else if (S_ISDIR(st.st_mode)) {
		pmi_read_fail(err, 0, "is a directory, not a report file");
		e = PM_E_IO;
	} else if (!S_ISREG(st.st_mode)) {
		/* A FIFO or a device may never end (or never start). */
		pmi_read_fail(err, 0, "not a regular file (%s)", S_ISFIFO(st.st_mode) ? "a FIFO" :
		             S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a socket");
		e = PM_E_IO;
	} else if ((uint64_t)st.st_size > PM_READ_MAX_BYTES) {
		pmi_read_fail(err, 0, "file is larger than the %u-byte limit", PM_READ_MAX_BYTES);
		e = PM_E_LIMIT;
	}
	char *buf = NULL;
	size_t len = 0;
	if (e == PM_OK)
		e = slurp(fd, &buf, &len, err);
	close(fd);
	if (e == PM_OK)
		e = pm_read_report(buf, len, r, err);
	free(buf);
	return e;
}
