/*
 * units.c — which compile unit covers an address, with its scopes.
 *
 * .debug_aranges answers first (dwarf_addrdie): it names the unit without
 * reading any other, which keeps the first answer fast.  Compilers may leave
 * aranges out (clang by default) or incomplete, so an address they miss is
 * looked up in the units' own DW_AT_low_pc/high_pc/ranges, read from every
 * unit DIE the first time that happens.  A unit is indexed (scopes.c) when an
 * address first falls into it and kept until the image is closed.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symb.h"

static size_t
slot_of(Dwarf_Off off, size_t cap)
{
	return (size_t)((off * 0x9e3779b97f4a7c15u) >> 24) & (cap - 1);
}

static bool
grow(pm_sy_units *u)
{
	size_t cap = u->cap ? 2 * u->cap : 64;
	pm_sy_unit **slots = calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	for (size_t i = 0; i < u->cap; i++) {
		if (!u->slots[i])
			continue;
		size_t j = slot_of(dwarf_dieoffset(&u->slots[i]->die), cap);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = u->slots[i];
	}
	free(u->slots);
	u->slots = slots;
	u->cap = cap;
	return true;
}

static pm_sy_unit *
new_unit(Dwarf_Die *cudie)
{
	pm_sy_unit *unit = calloc(1, sizeof *unit);
	if (!unit)
		return NULL;
	unit->die = *cudie;
	Dwarf_Attribute a;
	unit->comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	if (!pmi_sy_scopes_build(&unit->scopes, cudie)) {
		free(unit);
		return NULL;
	}
	return unit;
}

/* The unit of a unit DIE, made on first use; NULL when out of memory. */
static pm_sy_unit *
unit_of(pm_sy_units *u, Dwarf_Die *cudie)
{
	if (2 * (u->count + 1) > u->cap && !grow(u))
		return NULL;
	Dwarf_Off off = dwarf_dieoffset(cudie);
	size_t i = slot_of(off, u->cap);
	while (u->slots[i] && dwarf_dieoffset(&u->slots[i]->die) != off)
		i = (i + 1) & (u->cap - 1);
	if (!u->slots[i] && (u->slots[i] = new_unit(cudie)) != NULL)
		u->count++;
	return u->slots[i];
}

static bool
add_spans(pm_sy_units *u, Dwarf_Die *cudie, size_t *cap)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (!pmi_grow((void **)&u->spans, cap, u->span_count + 1, sizeof *u->spans))
			return false;
		u->spans[u->span_count++] = (pm_sy_unit_span){ .lo = lo, .hi = hi, .die = dwarf_dieoffset(cudie) };
	}
	return true;
}

static int
by_lo(const void *a, const void *b)
{
	const pm_sy_unit_span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool
build_spans(pm_sy_units *u)
{
	size_t cap = 0;
	Dwarf_CU *cu = NULL;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie, subdie;
	u->spans_built = true;
	while (dwarf_get_units(u->dwarf, cu, &cu, &version, &type, &cudie, &subdie) == 0)
		if (type == DW_UT_compile && !add_spans(u, &cudie, &cap))
			return false;
	qsort(u->spans, u->span_count, sizeof *u->spans, by_lo);
	return true;
}

/* The unit DIE whose own ranges cover pc, from the spans. */
static bool
span_die(pm_sy_units *u, uint64_t pc, Dwarf_Die *cudie)
{
	size_t lo = 0, hi = u->span_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->spans[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc < u->spans[lo - 1].hi && dwarf_offdie(u->dwarf, u->spans[lo - 1].die, cudie);
}

pm_sy_unit *
pmi_sy_units_at(pm_sy_units *u, uint64_t pc, bool *nomem)
{
	Dwarf_Die cudie;
	if (!dwarf_addrdie(u->dwarf, pc, &cudie)) {
		if (!u->spans_built && !build_spans(u)) {
			*nomem = true;
			return NULL;
		}
		if (!span_die(u, pc, &cudie))
			return NULL;
	}
	pm_sy_unit *unit = unit_of(u, &cudie);
	*nomem = !unit;
	return unit;
}

void
pmi_sy_units_free(pm_sy_units *u)
{
	for (size_t i = 0; i < u->cap; i++) {
		if (!u->slots[i])
			continue;
		pmi_sy_scopes_free(&u->slots[i]->scopes);
		free(u->slots[i]);
	}
	free(u->slots);
	free(u->spans);
	memset(u, 0, sizeof *u);
}
