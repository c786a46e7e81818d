/*
 * read_minidump.c — a minidump (Breakpad, Crashpad, postmortem) into the
 * report model: the header and directory, bounds-checked access, strings;
 * the streams themselves are in read_minidump_streams.c.
 *
 * What a minidump cannot give the model without the binaries: frames past
 * the first.  Each thread gets its registers and frame 0 (its pc); the
 * stack memory stays in the file for a debugger to unwind.
 */
#include "read_minidump.h"

#include <string.h>

#include "read_util.h"

const uint8_t *
pm_mdr_span(const pm_mdr *m, uint64_t rva, uint64_t n)
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
pm_mdr_string(pm_mdr *m, uint64_t rva)
{
	const uint8_t *p = pm_mdr_span(m, rva, 4);
	if (!p)
		return NULL;
	uint32_t bytes = pm_md_get32(p);
	if (bytes > PM_MDR_MAX_STRING || (bytes & 1) || bytes > PM_MDR_MAX_STRINGS - m->string_bytes)
		return NULL;
	const uint8_t *u = pm_mdr_span(m, rva + 4, bytes);
	if (!u)
		return NULL;
	m->string_bytes += bytes;
	size_t units = bytes / 2, n = 0;
	char *s = pm_arena_alloc(&m->r->arena, units * 3 + 1, 1);
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
pm_mdr_list(const pm_mdr *m, const uint8_t *dir, uint32_t entry_size, uint32_t max, uint32_t *count,
            uint64_t *first)
{
	uint32_t size = pm_md_get32(dir + 4), rva = pm_md_get32(dir + 8);
	const uint8_t *p = pm_mdr_span(m, rva, size);
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

typedef pm_err stream_fn(pm_mdr *m, const uint8_t *dir);

/* In this order: SystemInfo says how to read contexts, the modules come
 * before the threads' frames point into them, the exception marks a thread. */
static const struct {
	uint32_t type;
	stream_fn *fn;
} readers[] = {
	{ PM_MD_SYSTEM_INFO, pm_mdr_system_info },
	{ PM_MD_MISC_INFO, pm_mdr_misc_info },
	{ PM_MD_MODULE_LIST, pm_mdr_modules },
	{ PM_MD_EXCEPTION, pm_mdr_exception },
	{ PM_MD_THREAD_LIST, pm_mdr_threads },
	{ PM_MD_THREAD_NAMES, pm_mdr_thread_names },
};

/* The first directory entry of a stream type, or NULL. */
static const uint8_t *
find_stream(const uint8_t *dir, uint32_t count, uint32_t type)
{
	for (uint32_t i = 0; i < count; i++)
		if (pm_md_get32(dir + (size_t)i * PM_MD_DIR_ENTRY_SIZE) == type)
			return dir + (size_t)i * PM_MD_DIR_ENTRY_SIZE;
	return NULL;
}

pm_err
pm_read_minidump(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	pm_err checked = pm_read_check_input(data, len, r, err);
	if (checked != PM_OK)
		return checked;
	pm_mdr m = { .data = (const uint8_t *)data, .len = len, .r = r, .err = err };
	const uint8_t *h = pm_mdr_span(&m, 0, PM_MD_HEADER_SIZE);
	if (!h || pm_md_get32(h) != PM_MD_SIGNATURE)
		return pm_read_fail(err, 0, "not a minidump: no MDMP signature");
	if ((pm_md_get32(h + 4) & 0xffff) != PM_MD_VERSION)
		return pm_read_fail(err, 0, "minidump version 0x%x is not 0xa793", pm_md_get32(h + 4) & 0xffff);
	uint32_t count = pm_md_get32(h + 8);
	const uint8_t *dir = pm_mdr_span(&m, pm_md_get32(h + 12), (uint64_t)count * PM_MD_DIR_ENTRY_SIZE);
	if (!dir)
		return pm_read_fail(err, 0, "minidump directory (%u streams) lies outside the file", count);
	r->format = PM_FORMAT_MINIDUMP;
	r->kind = PM_KIND_SNAPSHOT;
	r->header.time.sec = pm_md_get32(h + 20);
	r->header.time.set = r->header.time.sec != 0;
	for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
		const uint8_t *d = find_stream(dir, count, readers[i].type);
		if (!d)
			continue;
		pm_err e = readers[i].fn(&m, d);
		if (e != PM_OK)
			return e;
	}
	if (r->arena.exhausted)
		return PM_E_NOMEM;
	r->complete = true;
	return PM_OK;
}
