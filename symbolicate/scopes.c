/*
 * scopes.c — every function and inlined call of one compile unit, indexed
 * by address, built the first time an address falls into the unit.
 *
 * eu-addr2line calls dwarf_getscopes for each address, which walks the
 * unit's DIE tree from its root every time; one walk per unit makes a
 * lookup a binary search.  Each DW_TAG_subprogram and
 * DW_TAG_inlined_subroutine with code becomes a scope with its parent scope
 * (lexical blocks, namespaces and classes local to a function are looked
 * through, not kept); its address
 * ranges are sorted by start, deeper ranges after shallower ones starting at
 * the same address.  DWARF nests the ranges of a call inside its caller's,
 * so the last range starting at or before an address is the innermost scope
 * containing it or a scope inside that one: walking up its parents finds the
 * innermost.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symb.h"

/* Deeper DIE nesting than this is not worth following (and bounds the recursion). */
enum { MAX_NESTING = 256 };

typedef struct builder {
	pm_sy_scopes *s;
	size_t scope_cap, range_cap;
	bool nomem;
} builder;

/* An unsigned attribute plus `add`, or 0 when absent or too large. */
static uint32_t
udata(Dwarf_Die *die, unsigned name, uint32_t add)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	return dwarf_formudata(dwarf_attr(die, name, &a), &w) == 0 && w < UINT32_MAX ? (uint32_t)w + add : 0;
}

static bool
add_ranges(builder *b, Dwarf_Die *die, uint32_t scope, uint32_t depth)
{
	pm_sy_scopes *s = b->s;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (!pmi_grow((void **)&s->ranges, &b->range_cap, s->range_count + 1, sizeof *s->ranges)) {
			b->nomem = true;
			return false;
		}
		s->ranges[s->range_count++] = (pm_sy_range){ .lo = lo, .hi = hi, .scope = scope, .depth = depth };
	}
	return true;
}

/* The new scope's index, or -1 when the DIE has no code (a declaration, an abstract instance). */
static int32_t
add_scope(builder *b, Dwarf_Die *die, int32_t parent, bool inlined, uint32_t depth)
{
	pm_sy_scopes *s = b->s;
	uint32_t first = (uint32_t)s->range_count;
	if (s->count >= INT32_MAX || !add_ranges(b, die, (uint32_t)s->count, depth) || s->range_count == first)
		return -1;
	if (!pmi_grow((void **)&s->scopes, &b->scope_cap, s->count + 1, sizeof *s->scopes)) {
		b->nomem = true;
		s->range_count = first;
		return -1;
	}
	Dwarf_Addr entry;
	if (dwarf_entrypc(die, &entry) != 0)
		entry = s->ranges[first].lo;
	s->scopes[s->count] = (pm_sy_scope){
		.die = dwarf_dieoffset(die),
		.parent = parent,
		.inlined = inlined,
		.entry = entry,
		/* DWARF 5 numbers files from 0, so "no file" needs a value of its own. */
		.call_file = inlined ? udata(die, DW_AT_call_file, 1) : 0,
		.call_line = inlined ? udata(die, DW_AT_call_line, 0) : 0,
		.call_column = inlined ? udata(die, DW_AT_call_column, 0) : 0,
		.first_range = first,
		.range_count = (uint32_t)(s->range_count - first),
	};
	return (int32_t)s->count++;
}

static void
walk(builder *b, Dwarf_Die *die, int32_t parent, uint32_t depth, unsigned nesting)
{
	Dwarf_Die child;
	if (nesting >= MAX_NESTING || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine: {
			int32_t me = add_scope(b, &child, parent, tag == DW_TAG_inlined_subroutine, depth);
			walk(b, &child, me >= 0 ? me : parent, me >= 0 ? depth + 1 : depth, nesting + 1);
			break;
		}
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			walk(b, &child, parent, depth, nesting + 1);
			break;
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			/* A class local to a function may hold its member functions'
			 * code (GCC does so for lambdas); other classes only declare. */
			if (parent >= 0)
				walk(b, &child, parent, depth, nesting + 1);
			break;
		default:
			break;
		}
	} while (!b->nomem && dwarf_siblingof(&child, &child) == 0);
}

static int
by_lo_depth(const void *a, const void *b)
{
	const pm_sy_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

bool
pmi_sy_scopes_build(pm_sy_scopes *s, Dwarf_Die *cudie)
{
	memset(s, 0, sizeof *s);
	builder b = { .s = s };
	walk(&b, cudie, -1, 0, 0);
	if (!b.nomem && s->range_count) {
		s->sorted = malloc(s->range_count * sizeof *s->sorted);
		b.nomem = !s->sorted;
	}
	if (b.nomem) {
		pmi_sy_scopes_free(s);
		return false;
	}
	if (s->range_count) {
		memcpy(s->sorted, s->ranges, s->range_count * sizeof *s->sorted);
		qsort(s->sorted, s->range_count, sizeof *s->sorted, by_lo_depth);
	}
	return true;
}

static bool
contains(const pm_sy_scopes *s, int32_t scope, uint64_t pc)
{
	const pm_sy_scope *sc = &s->scopes[scope];
	for (uint32_t i = 0; i < sc->range_count; i++) {
		const pm_sy_range *r = &s->ranges[sc->first_range + i];
		if (pc >= r->lo && pc < r->hi)
			return true;
	}
	return false;
}

int32_t
pmi_sy_scopes_at(const pm_sy_scopes *s, uint64_t pc)
{
	size_t lo = 0, hi = s->range_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->sorted[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	int32_t scope = (int32_t)s->sorted[lo - 1].scope;
	while (scope >= 0 && !contains(s, scope, pc))
		scope = s->scopes[scope].parent;
	return scope;
}

void
pmi_sy_scopes_free(pm_sy_scopes *s)
{
	free(s->scopes);
	free(s->ranges);
	free(s->sorted);
	memset(s, 0, sizeof *s);
}
