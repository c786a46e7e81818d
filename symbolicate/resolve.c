/*
 * resolve.c — one address to its frames, as a debugger shows them.
 *
 * The innermost frame takes its file, line and column from the line table;
 * each caller up the inline chain takes them from the call site recorded on
 * the inlined call below it (DW_AT_call_file/line/column), as eu-addr2line
 * -i and llvm-symbolizer do.  Names: the DWARF linkage name, demangled, else
 * DW_AT_name, following abstract origins and specifications.
 *
 * The outermost frame is the function the address physically lies in.  When
 * the image's symbol table has a symbol there, that symbol names it and the
 * offset is from the symbol's start: the name and offset the handler wrote,
 * and llvm-symbolizer's choice too.  Otherwise the DWARF function names it,
 * with the offset from its entry pc.  An inlined frame's offset is from the
 * entry pc of its inlined instance, where the inlined code starts (Apple's
 * translated reports also give inlined frames offsets of their own).  An
 * address before that entry (a function split into hot and cold parts) gets
 * no offset rather than a negative one.
 */
#include <dwarf.h>

#include "symb.h"

static const char *
scope_name(pm_sy_module *m, pm_sy_scope *sc)
{
	if (sc->name)
		return sc->name;
	Dwarf_Die die;
	Dwarf_Attribute a;
	if (!dwarf_offdie(m->dwarf, sc->die, &die))
		return NULL;
	const char *n = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &a));
	sc->name = n ? pmi_sy_string(&m->strings, n, true) : NULL;
	return sc->name;
}

static const char *
call_file(pm_sy_module *m, pm_sy_unit *u, uint32_t file)
{
	if (file == 0 || (!u->files && dwarf_getsrcfiles(&u->die, &u->files, &u->file_count) != 0) ||
	    file - 1 >= u->file_count)
		return NULL;
	const char *n = dwarf_filesrc(u->files, file - 1, NULL, NULL);
	return n ? pmi_sy_path(&m->strings, n, u->comp_dir) : NULL;
}

static void
set_offset(pm_sy_loc *f, uint64_t address, uint64_t start)
{
	f->from = start;
	f->has_offset = address >= start;
	f->symbol_offset = f->has_offset ? address - start : 0;
}

/* The innermost location, from the line table. */
static void
line_location(pm_sy_module *m, pm_sy_unit *u, uint64_t pc, pm_sy_loc *f)
{
	Dwarf_Line *line = u ? dwarf_getsrc_die(&u->die, pc) : NULL;
	int n;
	if (!line)
		return;
	const char *file = dwarf_linesrc(line, NULL, NULL);
	f->file = file ? pmi_sy_path(&m->strings, file, u->comp_dir) : NULL;
	f->line = dwarf_lineno(line, &n) == 0 && n > 0 ? (uint32_t)n : 0;
	f->column = dwarf_linecol(line, &n) == 0 && n > 0 ? (uint32_t)n : 0;
}

/* Frames for the scope chain from `scope` outwards; returns the outermost. */
static pm_sy_loc *
chain(pm_sy_module *m, pm_sy_unit *u, int32_t scope, uint64_t address, uint64_t pc, pm_sy_locs *out)
{
	pm_sy_loc *f = pmi_sy_locs_push(out);
	if (!f)
		return NULL;
	line_location(m, u, pc, f);
	while (scope >= 0) {
		pm_sy_scope *sc = &u->scopes.scopes[scope];
		f->symbol = scope_name(m, sc);
		set_offset(f, address, sc->entry + m->bias);
		if (!sc->inlined)
			break;
		f->inlined = true;
		pm_sy_loc *caller = pmi_sy_locs_push(out);
		if (!caller)
			return NULL;
		caller->file = call_file(m, u, sc->call_file);
		caller->line = sc->call_line;
		caller->column = sc->call_column;
		f = caller;
		scope = sc->parent;
	}
	return f;
}

pm_sy_result
pmi_sy_resolve(pm_sy_module *m, uint64_t address, uint64_t lookup, pm_sy_locs *out)
{
	uint64_t pc = lookup - m->bias;
	bool nomem = false;
	pm_sy_unit *u = m->dwarf ? pmi_sy_units_at(&m->units, pc, &nomem) : NULL;
	if (nomem)
		return PM_SY_NOMEM;
	const pm_sy_sym *sym = pmi_sy_symtab_find(&m->symtab, pc);
	int32_t scope = u ? pmi_sy_scopes_at(&u->scopes, pc) : -1;
	if (!sym && !u)
		return PM_SY_NONE;
	pm_sy_loc *outer = chain(m, u, scope, address, pc, out);
	if (!outer)
		return PM_SY_NOMEM;
	if (sym) {
		outer->symbol = pmi_sy_string(&m->strings, sym->name, true);
		set_offset(outer, address, sym->addr + m->bias);
	}
	return PM_SY_FOUND;
}
