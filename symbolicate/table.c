/*
 * table.c — the pre-parsed symbol table of one image (`postmortem symbols
 * build`, table_build.c): read, checked, and looked up.
 *
 * A file DIR/<build id or UUID in hex>.pmsym, little-endian:
 *
 *   header   "PMSYMTB1", u32 id length, u8 id[64], u32 0, u64 base (the
 *            image's link-time start: lowest PT_LOAD page, or __TEXT),
 *            u64 range count, u64 location count, u64 string bytes
 *   ranges   {u64 lo, u32 first location, u32 location count}, by lo: the
 *            answer for link-time addresses lo up to the next range's lo
 *            (the last range, with no locations, only ends the one before)
 *   locs     {u32 symbol, u32 file, u32 line, u32 column, u64 from, u32 flags,
 *            u32 0}: the frames of an answer, innermost first, as resolve.c
 *            gives them; symbol and file are offsets into the strings (~0u:
 *            none), from the link-time address the symbol offset counts from,
 *            flags 1: the symbol has an offset, 2: inlined
 *   strings  NUL-terminated
 *
 * The file is checked whole before use (it may come from anywhere): sizes
 * add up to the file, ranges are sorted and point at locations, strings at
 * the string bytes, which end with a NUL.  A lookup is one binary search.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "symb.h"

static uint32_t
u32_at(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t
u64_at(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

bool
pmi_sy_table_check(pm_sy_table *t, const void *data, size_t len, char *why, size_t why_len)
{
	const unsigned char *p = data;
	if (len < PM_SY_TABLE_HEADER || memcmp(p, PM_SY_TABLE_MAGIC, 8) != 0) {
		snprintf(why, why_len, "not a postmortem symbol table");
		return false;
	}
	t->id_len = u32_at(p + 8);
	t->id = p + 12;
	t->base = u64_at(p + 80);
	uint64_t ranges = u64_at(p + 88), locs = u64_at(p + 96), strings = u64_at(p + 104);
	size_t body = len - PM_SY_TABLE_HEADER;
	if (t->id_len > PM_BUILD_ID_MAX || ranges > body / PM_SY_TABLE_RANGE || locs > body / PM_SY_TABLE_LOC ||
	    ranges * PM_SY_TABLE_RANGE + locs * PM_SY_TABLE_LOC + strings != body ||
	    (strings && p[len - 1] != '\0') || locs > UINT32_MAX) {
		snprintf(why, why_len, "damaged symbol table (sizes)");
		return false;
	}
	t->ranges = p + PM_SY_TABLE_HEADER;
	t->range_count = (size_t)ranges;
	t->locs = t->ranges + ranges * PM_SY_TABLE_RANGE;
	t->loc_count = (size_t)locs;
	t->strings = (const char *)t->locs + locs * PM_SY_TABLE_LOC;
	t->strings_len = (size_t)strings;
	for (size_t i = 0; i < t->range_count; i++) {
		const unsigned char *r = t->ranges + i * PM_SY_TABLE_RANGE;
		uint64_t first = u32_at(r + 8), n = u32_at(r + 12);
		if ((i > 0 && u64_at(r) <= u64_at(r - PM_SY_TABLE_RANGE)) || first + n > locs) {
			snprintf(why, why_len, "damaged symbol table (range %zu)", i);
			return false;
		}
	}
	for (size_t i = 0; i < t->loc_count; i++) {
		const unsigned char *l = t->locs + i * PM_SY_TABLE_LOC;
		uint32_t sym = u32_at(l), file = u32_at(l + 4);
		if ((sym != UINT32_MAX && sym >= strings) || (file != UINT32_MAX && file >= strings)) {
			snprintf(why, why_len, "damaged symbol table (location %zu)", i);
			return false;
		}
	}
	return true;
}

int
pmi_sy_table_open(pm_sy_table *t, const char *path, char *why, size_t why_len)
{
	memset(t, 0, sizeof *t);
	int err = pmi_sy_map_file(path, &t->map);
	if (err) {
		if (err != ENOENT && err != ENOTDIR)
			snprintf(why, why_len, "%s", strerror(err));
		return err;
	}
	if (!pmi_sy_table_check(t, t->map.data, t->map.len, why, why_len)) {
		pmi_sy_table_close(t);
		return EINVAL;
	}
	return 0;
}

void
pmi_sy_table_close(pm_sy_table *t)
{
	pmi_sy_unmap(&t->map);
	memset(t, 0, sizeof *t);
}

static const char *
string_at(const pm_sy_table *t, uint32_t off, pm_sy_strings *strings)
{
	return off == UINT32_MAX ? NULL : pmi_sy_string(strings, t->strings + off, false);
}

pm_sy_result
pmi_sy_table_resolve(const pm_sy_table *t, uint64_t bias, uint64_t address, uint64_t lookup,
                    pm_sy_strings *strings, pm_sy_locs *out)
{
	uint64_t pc = lookup - bias;
	size_t lo = 0, hi = t->range_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u64_at(t->ranges + mid * PM_SY_TABLE_RANGE) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return PM_SY_NONE;
	const unsigned char *r = t->ranges + (lo - 1) * PM_SY_TABLE_RANGE;
	uint32_t first = u32_at(r + 8), n = u32_at(r + 12);
	if (n == 0)
		return PM_SY_NONE;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *l = t->locs + (size_t)(first + i) * PM_SY_TABLE_LOC;
		pm_sy_loc *f = pmi_sy_locs_push(out);
		if (!f)
			return PM_SY_NOMEM;
		uint32_t flags = u32_at(l + 24);
		f->symbol = string_at(t, u32_at(l), strings);
		f->file = string_at(t, u32_at(l + 4), strings);
		f->line = u32_at(l + 8);
		f->column = u32_at(l + 12);
		f->inlined = flags & PM_SY_TABLE_INLINED;
		if (flags & PM_SY_TABLE_OFFSET) {
			/* As resolve.c: from the frame's own address, none when it lies before the start. */
			f->from = u64_at(l + 16) + bias;
			f->has_offset = address >= f->from;
			f->symbol_offset = f->has_offset ? address - f->from : 0;
		}
		if ((u32_at(l) != UINT32_MAX && !f->symbol) || (u32_at(l + 4) != UINT32_MAX && !f->file))
			return PM_SY_NOMEM;
	}
	return PM_SY_FOUND;
}
