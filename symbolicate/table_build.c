/*
 * table_build.c — the pre-parsed table of an open module (format: table.c).
 *
 * The answer resolve.c gives can change only where something it reads
 * starts or ends: a symbol, a line-table row, a unit's or a scope's range, a
 * scope's entry pc (where offsets start counting), an arange.  Those
 * addresses are gathered, and resolve.c answers once at each; an answer the
 * same as the one before (the same frames, offsets counted from the same
 * place) only extends its range.  Every address of a range then gets what
 * resolve.c would give it, by construction.
 */
#include <stdlib.h>
#include <string.h>

#include "symb.h"

typedef struct builder {
	uint64_t *at;            /* boundaries */
	size_t at_count, at_cap;
	unsigned char *ranges, *locs;
	size_t range_count, range_cap, loc_count, loc_cap;
	char *strings;
	size_t strings_len, strings_cap;
	const char **keys;       /* string pointer -> offset, open addressing */
	uint32_t *offs;
	size_t key_count, key_cap;
	bool nomem;
} builder;

static void
boundary(builder *b, uint64_t a)
{
	if (!pm_grow((void **)&b->at, &b->at_cap, b->at_count + 1, sizeof *b->at)) {
		b->nomem = true;
		return;
	}
	b->at[b->at_count++] = a;
}

static int
by_value(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;
	return a < c ? -1 : a > c;
}

static void
unit_boundaries(builder *b, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			Dwarf_Addr a;
			if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) == 0)
				boundary(b, a);
		}
	Dwarf_Addr base, lo, hi;
	for (ptrdiff_t o = 0; (o = dwarf_ranges(cu, o, &base, &lo, &hi)) > 0;) {
		boundary(b, lo);
		boundary(b, hi);
	}
	pm_sy_scopes sc = { 0 };
	if (!pm_sy_scopes_build(&sc, cu))
		b->nomem = true;
	for (size_t i = 0; i < sc.range_count; i++) {
		boundary(b, sc.ranges[i].lo);
		boundary(b, sc.ranges[i].hi);
	}
	for (size_t i = 0; i < sc.count; i++)
		boundary(b, sc.scopes[i].entry);
	pm_sy_scopes_free(&sc);
}

static void
gather(builder *b, pm_sy_module *m)
{
	for (size_t i = 0; i < m->symtab.count; i++) {
		boundary(b, m->symtab.syms[i].addr);
		if (m->symtab.syms[i].size)
			boundary(b, m->symtab.syms[i].addr + m->symtab.syms[i].size);
	}
	if (!m->dwarf)
		return;
	Dwarf_Aranges *ar;
	size_t n;
	if (dwarf_getaranges(m->dwarf, &ar, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			Dwarf_Addr a;
			Dwarf_Word len;
			if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &a, &len, NULL) == 0) {
				boundary(b, a);
				boundary(b, a + len);
			}
		}
	size_t hsize;
	for (Dwarf_Off off = 0, next; dwarf_nextcu(m->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		Dwarf_Die cu;
		if (dwarf_offdie(m->dwarf, off + hsize, &cu))
			unit_boundaries(b, &cu);
	}
}

static size_t
key_slot(const char *s, size_t cap)
{
	return (size_t)(((uintptr_t)s * 0x9e3779b97f4a7c15u) >> 20) & (cap - 1);
}

/* The offset of s in the strings, added on first use; UINT32_MAX for NULL. */
static uint32_t
string_off(builder *b, const char *s)
{
	if (!s)
		return UINT32_MAX;
	if (2 * (b->key_count + 1) > b->key_cap) {
		size_t cap = b->key_cap ? 2 * b->key_cap : 1024;
		const char **keys = calloc(cap, sizeof *keys);
		uint32_t *offs = calloc(cap, sizeof *offs);
		if (!keys || !offs) {
			free(keys);
			free(offs);
			b->nomem = true;
			return UINT32_MAX;
		}
		for (size_t i = 0; i < b->key_cap; i++) {
			if (!b->keys[i])
				continue;
			size_t j = key_slot(b->keys[i], cap);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = b->keys[i];
			offs[j] = b->offs[i];
		}
		free(b->keys);
		free(b->offs);
		b->keys = keys;
		b->offs = offs;
		b->key_cap = cap;
	}
	size_t j = key_slot(s, b->key_cap);
	while (b->keys[j] && b->keys[j] != s)
		j = (j + 1) & (b->key_cap - 1);
	if (b->keys[j])
		return b->offs[j];
	size_t n = strlen(s) + 1;
	if (b->strings_len + n > UINT32_MAX ||
	    !pm_grow((void **)&b->strings, &b->strings_cap, b->strings_len + n, 1)) {
		b->nomem = true;
		return UINT32_MAX;
	}
	memcpy(b->strings + b->strings_len, s, n);
	b->keys[j] = s;
	b->offs[j] = (uint32_t)b->strings_len;
	b->key_count++;
	b->strings_len += n;
	return b->offs[j];
}

static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void
put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static bool
same_loc(const pm_sy_loc *x, const pm_sy_loc *y)
{
	return x->symbol == y->symbol && x->file == y->file && x->line == y->line && x->column == y->column &&
	       x->from == y->from && x->inlined == y->inlined;
}

static void
add_range(builder *b, uint64_t lo, const pm_sy_loc *locs, size_t n)
{
	if (!pm_grow((void **)&b->ranges, &b->range_cap, (b->range_count + 1) * PM_SY_TABLE_RANGE, 1) ||
	    !pm_grow((void **)&b->locs, &b->loc_cap, (b->loc_count + n) * PM_SY_TABLE_LOC, 1)) {
		b->nomem = true;
		return;
	}
	unsigned char *r = b->ranges + b->range_count++ * PM_SY_TABLE_RANGE;
	put64(r, lo);
	put32(r + 8, (uint32_t)b->loc_count);
	put32(r + 12, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		unsigned char *l = b->locs + b->loc_count++ * PM_SY_TABLE_LOC;
		memset(l, 0, PM_SY_TABLE_LOC);
		put32(l, string_off(b, locs[i].symbol));
		put32(l + 4, string_off(b, locs[i].file));
		put32(l + 8, locs[i].line);
		put32(l + 12, locs[i].column);
		put64(l + 16, locs[i].from);
		/* At link time (bias 0) no code starts at 0: a zero `from` is an offset never set. */
		put32(l + 24, (locs[i].from ? PM_SY_TABLE_OFFSET : 0) | (locs[i].inlined ? PM_SY_TABLE_INLINED : 0));
	}
}

/* One answer per boundary, merged with the one before when it is the same. */
static void
answer_all(builder *b, pm_sy_module *m)
{
	pm_sy_locs cur = { 0 }, prev = { 0 };
	bool have_prev = false;
	for (size_t i = 0; i < b->at_count && !b->nomem; i++) {
		cur.len = 0;
		pm_sy_result res = pm_sy_resolve(m, b->at[i], b->at[i], &cur);
		if (res == PM_SY_NOMEM) {
			b->nomem = true;
			break;
		}
		size_t n = res == PM_SY_FOUND ? cur.len : 0;
		bool same = have_prev && n == prev.len;
		for (size_t k = 0; same && k < n; k++)
			same = same_loc(&cur.v[k], &prev.v[k]);
		if (same)
			continue;
		add_range(b, b->at[i], cur.v, n);
		pm_sy_locs t = prev;
		prev = cur;
		prev.len = n;
		cur = t;
		have_prev = true;
	}
	free(cur.v);
	free(prev.v);
}

static bool
write_all(const builder *b, const uint8_t *id, size_t id_len, uint64_t base, FILE *out)
{
	unsigned char h[PM_SY_TABLE_HEADER] = { 0 };
	memcpy(h, PM_SY_TABLE_MAGIC, 8);
	put32(h + 8, (uint32_t)id_len);
	memcpy(h + 12, id, id_len);
	put64(h + 80, base);
	put64(h + 88, b->range_count);
	put64(h + 96, b->loc_count);
	put64(h + 104, b->strings_len);
	return fwrite(h, 1, sizeof h, out) == sizeof h &&
	       fwrite(b->ranges, PM_SY_TABLE_RANGE, b->range_count, out) == b->range_count &&
	       fwrite(b->locs, PM_SY_TABLE_LOC, b->loc_count, out) == b->loc_count &&
	       fwrite(b->strings, 1, b->strings_len, out) == b->strings_len;
}

bool
pm_sy_table_write(pm_sy_module *m, const uint8_t *id, size_t id_len, uint64_t base, FILE *out)
{
	builder b = { 0 };
	gather(&b, m);
	if (b.at_count)
		qsort(b.at, b.at_count, sizeof *b.at, by_value);
	size_t n = 0;
	for (size_t i = 0; i < b.at_count; i++)
		if (n == 0 || b.at[i] != b.at[n - 1])
			b.at[n++] = b.at[i];
	b.at_count = n;
	answer_all(&b, m);
	bool ok = !b.nomem && b.loc_count <= UINT32_MAX && id_len <= PM_BUILD_ID_MAX &&
	          write_all(&b, id, id_len, base, out);
	free(b.at);
	free(b.ranges);
	free(b.locs);
	free(b.strings);
	free(b.keys);
	free(b.offs);
	return ok;
}
