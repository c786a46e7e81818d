/*
 * read_minidump_access.c — bounds-checked access to a minidump, shared by
 * the directory (read_minidump.c) and the streams (read_minidump_streams.c):
 * spans, strings, list streams.
 */
#include "model.h"
#include "read_minidump.h"

#include <string.h>

const uint8_t *
pmi_mdr_span(const pm_mdr *m, uint64_t rva, uint64_t n)
{
	if (rva > m->len || n > m->len - rva)
		return NULL;
	return m->data + rva;
}

/* One UTF-16 code unit to UTF-8 (surrogate pairs joined; lone ones become U+FFFD). */
static size_t
put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

const char *
pmi_mdr_string(pm_mdr *m, uint64_t rva)
{
	const uint8_t *p = pmi_mdr_span(m, rva, 4);
	if (!p)
		return NULL;
	uint32_t bytes = pm_md_get32(p);
	if (bytes > PM_MDR_MAX_STRING || (bytes & 1) || bytes > PM_MDR_MAX_STRINGS - m->string_bytes)
		return NULL;
	const uint8_t *u = pmi_mdr_span(m, rva + 4, bytes);
	if (!u)
		return NULL;
	m->string_bytes += bytes;
	size_t units = bytes / 2, n = 0;
	char *s = pmi_arena_alloc(m->r->arena, units * 3 + 1, 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < units; i++) {
		uint32_t c = pm_md_get16(u + 2 * i);
		if (c == 0)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < units) {
			uint32_t lo = pm_md_get16(u + 2 * i + 2);
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd;
		n += put_utf8(s + n, c);
	}
	s[n] = '\0';
	return s;
}

bool
pmi_mdr_list(const pm_mdr *m, const uint8_t *dir, uint32_t entry_size, uint32_t max, uint32_t *count,
            uint64_t *first)
{
	uint32_t size = pm_md_get32(dir + 4), rva = pm_md_get32(dir + 8);
	const uint8_t *p = pmi_mdr_span(m, rva, size);
	if (!p || size < 4)
		return false;
	uint64_t n = pm_md_get32(p), bytes = n * entry_size;
	if (n > max)
		return false;
	if (4 + bytes == size)
		*first = (uint64_t)rva + 4;
	else if (8 + bytes == size)
		*first = (uint64_t)rva + 8;
	else
		return false;
	*count = (uint32_t)n;
	return true;
}
