/*
 * module.c — one image opened for lookups: its ELF file (program headers for
 * the load bias, the symbol table) and the file holding its DWARF, both
 * already matched by build id (find_debug.c).
 *
 * Report addresses are runtime addresses.  An image's start is the runtime
 * address of the page holding its lowest PT_LOAD (reporter/images/as_images.c), so
 * the bias is start minus that page's link-time address; a split debug file
 * keeps the program headers and addresses of its binary, so one bias serves
 * both files.  libdw reads the DWARF from an inflated copy of the sections
 * it needs (dwarf_image.c) when it can.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symb.h"

static bool
lowest_load(Elf *elf, uint64_t *lo)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	*lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < *lo)
			*lo = ph.p_vaddr;
	}
	return *lo != UINT64_MAX;
}

static Elf *
open_elf(const char *path, int *fd)
{
	*fd = pmi_sy_open_file(path);
	if (*fd < 0)
		return NULL;
	Elf *elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		elf = NULL;
	}
	return elf;
}

static void
open_dwarf(pm_sy_module *m, const pm_sy_files *files, char *why, size_t why_len)
{
	Elf *elf = m->elf;
	if (strcmp(files->dwarf_path, files->elf_path) != 0) {
		elf = m->dwarf_elf = open_elf(files->dwarf_path, &m->dwarf_fd);
		if (!elf) {
			snprintf(why, why_len, "cannot read %s: %s", files->dwarf_path,
			         m->dwarf_fd < 0 ? strerror(errno) : elf_errmsg(-1));
			return;
		}
	}
	size_t size;
	m->dwarf_image = pmi_sy_dwarf_image(elf, &size);
	if (m->dwarf_image)
		m->dwarf_mem = elf_memory(m->dwarf_image, size);
	pmi_sy_module_dwarf(m, m->dwarf_mem ? m->dwarf_mem : elf, files->dwarf_path, why, why_len);
}

void
pmi_sy_module_init(pm_sy_module *m, pm_arena *arena, char *why)
{
	memset(m, 0, sizeof *m);
	m->elf_fd = m->dwarf_fd = -1;
	m->strings.arena = arena;
	why[0] = '\0';
}

void
pmi_sy_module_dwarf(pm_sy_module *m, Elf *elf, const char *path, char *why, size_t why_len)
{
	m->dwarf = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (!m->dwarf) {
		snprintf(why, why_len, "cannot read DWARF in %s: %s", path, elf ? dwarf_errmsg(-1) : "out of memory");
		return;
	}
	m->units.dwarf = m->dwarf;
}

bool
pmi_sy_module_open(pm_sy_module *m, const pm_image *img, const pm_sy_files *files, pm_arena *arena,
                  char *why, size_t why_len)
{
	pmi_sy_module_init(m, arena, why);
	m->elf = open_elf(files->elf_path, &m->elf_fd);
	uint64_t lo;
	if (!m->elf || !lowest_load(m->elf, &lo)) {
		snprintf(why, why_len, "cannot read %s: %s", files->elf_path,
		         m->elf_fd < 0 ? strerror(errno) : m->elf ? "no PT_LOAD segment" : elf_errmsg(-1));
		pmi_sy_module_close(m);
		return false;
	}
	m->bias = img->start - (lo & ~(uint64_t)0xfff);
	if (!pmi_sy_symtab_load(&m->symtab, m->elf)) {
		snprintf(why, why_len, "out of memory reading the symbols of %s", files->elf_path);
		pmi_sy_module_close(m);
		return false;
	}
	if (files->dwarf_path)
		open_dwarf(m, files, why, why_len);
	return true;
}

void
pmi_sy_module_close(pm_sy_module *m)
{
	pmi_sy_units_free(&m->units);
	if (m->dwarf)
		dwarf_end(m->dwarf);
	pmi_sy_symtab_free(&m->symtab);
	pmi_sy_strings_free(&m->strings);
	elf_end(m->dwarf_mem);
	free(m->dwarf_image);
	elf_end(m->dwarf_elf);
	elf_end(m->elf);
	if (m->dwarf_fd >= 0)
		close(m->dwarf_fd);
	if (m->elf_fd >= 0)
		close(m->elf_fd);
	pmi_sy_unmap(&m->maps[0]);
	pmi_sy_unmap(&m->maps[1]);
	m->dwarf = NULL;
	m->dwarf_image = NULL;
	m->elf = m->dwarf_elf = m->dwarf_mem = NULL;
	m->elf_fd = m->dwarf_fd = -1;
}
