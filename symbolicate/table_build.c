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
	unsigned char *ranges;
	size_t range_count, range_cap;
	pm_sy_loc *locs;         /* their strings are the module's copies, one pointer per string */
	size_t loc_count, loc_cap;
	const char **strings;    /* those pointers, sorted, once each */
	uint32_t *offsets;       /* where each is written */
	size_t string_count;
	uint64_t strings_len;
	bool nomem;
} builder;

static void
boundary(builder *b, uint64_t a)
{
	if (!pmi_grow((void **)&b->at, &b->at_cap, b->at_count + 1, sizeof *b->at)) {
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
	if (!pmi_sy_scopes_build(&sc, cu))
		b->nomem = true;
	for (size_t i = 0; i < sc.range_count; i++) {
		boundary(b, sc.ranges[i].lo);
		boundary(b, sc.ranges[i].hi);
	}
	for (size_t i = 0; i < sc.count; i++)
		boundary(b, sc.scopes[i].entry);
	pmi_sy_scopes_free(&sc);
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
	if (!pmi_grow((void **)&b->ranges, &b->range_cap, (b->range_count + 1) * PM_SY_TABLE_RANGE, 1) ||
	    !pmi_grow((void **)&b->locs, &b->loc_cap, b->loc_count + n, sizeof *b->locs)) {
		b->nomem = true;
		return;
	}
	unsigned char *r = b->ranges + b->range_count++ * PM_SY_TABLE_RANGE;
	put64(r, lo);
	put32(r + 8, (uint32_t)b->loc_count);
	put32(r + 12, (uint32_t)n);
	memcpy(b->locs + b->loc_count, locs, n * sizeof *locs);
	b->loc_count += n;
}

static int
by_pointer(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t) * (const char *const *)x, c = (uintptr_t) * (const char *const *)y;
	return a < c ? -1 : a > c;
}

/* Every string the locations use, once, with the offset it is written at. */
static void
index_strings(builder *b)
{
	b->strings = malloc((2 * b->loc_count + 1) * sizeof *b->strings);
	if (!b->strings) {
		b->nomem = true;
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < b->loc_count; i++) {
		if (b->locs[i].symbol)
			b->strings[n++] = b->locs[i].symbol;
		if (b->locs[i].file)
			b->strings[n++] = b->locs[i].file;
	}
	qsort(b->strings, n, sizeof *b->strings, by_pointer);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || b->strings[i] != b->strings[u - 1])
			b->strings[u++] = b->strings[i];
	b->string_count = u;
	b->offsets = malloc((u + 1) * sizeof *b->offsets);
	for (size_t i = 0; b->offsets && i < u && b->strings_len <= UINT32_MAX; i++) {
		b->offsets[i] = (uint32_t)b->strings_len;
		b->strings_len += strlen(b->strings[i]) + 1;
	}
	b->nomem |= !b->offsets || b->strings_len > UINT32_MAX;
}

static uint32_t
string_off(const builder *b, const char *s)
{
	if (!s)
		return UINT32_MAX;
	const char **at = bsearch(&s, b->strings, b->string_count, sizeof *b->strings, by_pointer);
	return b->offsets[at - b->strings];
}

static bool
write_locs(const builder *b, FILE *out)
{
	for (size_t i = 0; i < b->loc_count; i++) {
		const pm_sy_loc *f = &b->locs[i];
		unsigned char l[PM_SY_TABLE_LOC] = { 0 };
		put32(l, string_off(b, f->symbol));
		put32(l + 4, string_off(b, f->file));
		put32(l + 8, f->line);
		put32(l + 12, f->column);
		put64(l + 16, f->from);
		/* At link time (bias 0) no code starts at 0: a zero `from` is an offset never set. */
		put32(l + 24, (f->from ? PM_SY_TABLE_OFFSET : 0) | (f->inlined ? PM_SY_TABLE_INLINED : 0));
		if (fwrite(l, 1, sizeof l, out) != sizeof l)
			return false;
	}
	for (size_t i = 0; i < b->string_count; i++)
		if (fwrite(b->strings[i], 1, strlen(b->strings[i]) + 1, out) != strlen(b->strings[i]) + 1)
			return false;
	return true;
}

/* One answer per boundary, merged with the one before when it is the same. */
static void
answer_all(builder *b, pm_sy_module *m)
{
	pm_sy_locs cur = { 0 }, prev = { 0 };
	bool have_prev = false;
	for (size_t i = 0; i < b->at_count && !b->nomem; i++) {
		cur.len = 0;
		pm_sy_result res = pmi_sy_resolve(m, b->at[i], b->at[i], &cur);
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
	       fwrite(b->ranges, PM_SY_TABLE_RANGE, b->range_count, out) == b->range_count && write_locs(b, out);
}

bool
pmi_sy_table_write(pm_sy_module *m, const uint8_t *id, size_t id_len, uint64_t base, FILE *out)
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
	if (!b.nomem)
		index_strings(&b);
	bool ok = !b.nomem && b.loc_count <= UINT32_MAX && id_len <= PM_BUILD_ID_MAX &&
	          write_all(&b, id, id_len, base, out);
	free(b.at);
	free(b.ranges);
	free(b.locs);
	free(b.strings);
	free(b.offsets);
	return ok;
}
