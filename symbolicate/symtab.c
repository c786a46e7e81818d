/*
 * symtab.c — the image's own symbol table, sorted for lookups.
 *
 * It names the function a frame is physically in, as the handler did and
 * as llvm-symbolizer does: .symtab, or .dynsym when the file is stripped;
 * function and ifunc symbols defined in some section.  Of several symbols at
 * one address the one with the largest size is kept, then the one last in
 * the table, which is how llvm-symbolizer 14 settles aliases (glibc's
 * "glob64" and "glob", "__wcsxfrm_l" and "wcsxfrm_l").  A symbol without a
 * size reaches to the next one.  (libdwfl's dwfl_module_addrinfo would do,
 * but it scans the whole table on every call.)
 */
#include <stdlib.h>
#include <string.h>

#include "symb.h"

static Elf_Scn *
find_table(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && sh->sh_entsize && sh->sh_size / sh->sh_entsize > 1)
			return scn;
	return NULL;
}

static bool
wanted(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return false;
	return s->st_shndx != SHN_UNDEF && (s->st_shndx < SHN_LORESERVE || s->st_shndx == SHN_XINDEX);
}

static int
by_addr_size_index(const void *a, const void *b)
{
	const pm_sy_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Keep the last of each run of equal addresses: the largest size, then the last in the table. */
void
pmi_sy_symtab_sort(pm_sy_symtab *t)
{
	qsort(t->syms, t->count, sizeof *t->syms, by_addr_size_index);
	size_t out = 0;
	for (size_t i = 0; i < t->count; i++) {
		if (i + 1 < t->count && t->syms[i + 1].addr == t->syms[i].addr)
			continue;
		t->syms[out++] = t->syms[i];
	}
	t->count = out;
}

bool
pmi_sy_symtab_load(pm_sy_symtab *t, Elf *elf)
{
	memset(t, 0, sizeof *t);
	GElf_Shdr sh;
	Elf_Scn *scn = find_table(elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = find_table(elf, SHT_DYNSYM, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data)
		return true;
	size_t n = sh.sh_size / sh.sh_entsize;
	t->syms = malloc(n * sizeof *t->syms);
	if (!t->syms)
		return false;
	/* Entry 0 is the null symbol. */
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		if (!gelf_getsym(data, (int)i, &s) || !wanted(&s) ||
		    !(name = elf_strptr(elf, sh.sh_link, s.st_name)) || !name[0])
			continue;
		t->syms[t->count++] = (pm_sy_sym){ .addr = s.st_value, .size = s.st_size, .name = name, .index = i };
	}
	pmi_sy_symtab_sort(t);
	return true;
}

const pm_sy_sym *
pmi_sy_symtab_find(const pm_sy_symtab *t, uint64_t pc)
{
	size_t lo = 0, hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const pm_sy_sym *s = &t->syms[lo - 1];
	/* A symbol without a size reaches to the next one. */
	return s->size == 0 || pc - s->addr < s->size ? s : NULL;
}

void
pmi_sy_symtab_free(pm_sy_symtab *t)
{
	free(t->syms);
	memset(t, 0, sizeof *t);
}
