/*
 * http_form.c — the test server's multipart/form-data decoder.
 *
 * Written from RFC 7578 rather than borrowed from curl, so the tests check
 * the uploader against the format and not against curl's own idea of it.
 * Parts sent as application/gzip are inflated, as a server would.
 */
#include "http_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* The value of attribute `key` ("name", "filename", "boundary") in a header value. */
static void
attribute(const char *value, size_t vlen, const char *key, char *out, size_t cap)
{
	out[0] = '\0';
	size_t klen = strlen(key);
	for (size_t i = 0; i + klen + 1 < vlen; i++) {
		if ((i > 0 && value[i - 1] != ' ' && value[i - 1] != ';') || value[i + klen] != '='
		    || strncasecmp(value + i, key, klen) != 0)
			continue;
		const char *v = value + i + klen + 1, *end = value + vlen;
		bool quoted = *v == '"';
		v += quoted;
		size_t n = 0;
		while (v + n < end && (quoted ? v[n] != '"' : v[n] != ';' && v[n] != ' ' && v[n] != '\r'))
			n++;
		snprintf(out, cap, "%.*s", (int)n, v);
		return;
	}
}

/* A header's value within [head, head_end), or NULL; *len gets its length. */
static const char *
part_header(const char *head, const char *head_end, const char *name, size_t *len)
{
	size_t n = strlen(name);
	for (const char *line = head; line < head_end;) {
		const char *eol = memmem(line, (size_t)(head_end - line), "\r\n", 2);
		if (!eol)
			eol = head_end;
		if ((size_t)(eol - line) > n && line[n] == ':' && strncasecmp(line, name, n) == 0) {
			const char *v = line + n + 1;
			while (*v == ' ')
				v++;
			*len = (size_t)(eol - v);
			return v;
		}
		line = eol + 2;
	}
	return NULL;
}

static bool
gunzip(const char *in, size_t n, char **out, size_t *out_len)
{
	z_stream z = { 0 };
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return false;
	size_t cap = n * 4 + 1024, len = 0;
	char *buf = malloc(cap + 1);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	int rc;
	do {
		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
		z.next_out = (Bytef *)buf + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
	} while (rc == Z_OK);
	inflateEnd(&z);
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return rc == Z_STREAM_END && z.avail_in == 0;
}

static void
take_part(http_request *r, const char *p, size_t n)
{
	const char *blank = memmem(p, n, "\r\n\r\n", 4);
	if (!blank || r->part_count == HTTP_MAX_PARTS)
		return;
	http_part *part = &r->parts[r->part_count++];
	size_t vlen;
	const char *v = part_header(p, blank, "Content-Disposition", &vlen);
	if (v) {
		attribute(v, vlen, "name", part->name, sizeof part->name);
		attribute(v, vlen, "filename", part->filename, sizeof part->filename);
	}
	v = part_header(p, blank, "Content-Type", &vlen);
	if (v)
		snprintf(part->type, sizeof part->type, "%.*s", (int)vlen, v);
	const char *data = blank + 4;
	size_t len = n - (size_t)(data - p);
	if (strcmp(part->type, "application/gzip") == 0) {
		part->gzipped = true;
		part->decode_failed = !gunzip(data, len, &part->data, &part->len);
		return;
	}
	part->data = malloc(len + 1);
	memcpy(part->data, data, len);
	part->data[len] = '\0';
	part->len = len;
}

void
http_form_parse(http_request *r)
{
	char type[256], boundary[128], delim[140];
	if (!http_request_header(r, "Content-Type", type, sizeof type)
	    || strncasecmp(type, "multipart/form-data", 19) != 0)
		return;
	attribute(type, strlen(type), "boundary", boundary, sizeof boundary);
	/* Every part starts after "--boundary\r\n"; the next one is preceded by "\r\n". */
	int dn = snprintf(delim, sizeof delim, "\r\n--%s", boundary);
	const char *end = r->body + r->body_len;
	const char *p = memmem(r->body, r->body_len, delim + 2, (size_t)dn - 2);
	while (p) {
		p += dn - 2;
		if (end - p >= 2 && memcmp(p, "--", 2) == 0)
			return;
		p += 2;   /* CRLF after the delimiter */
		const char *next = memmem(p, (size_t)(end - p), delim, (size_t)dn);
		if (!next)
			return;
		take_part(r, p, (size_t)(next - p));
		p = next + 2;
	}
}

void
http_form_free(http_request *r)
{
	for (size_t i = 0; i < r->part_count; i++)
		free(r->parts[i].data);
	r->part_count = 0;
}
