/*
 * macho_file.c — Mach-O files on disk: mapped read-only, checked as
 * candidates (find_debug.c), and opened for lookups: the symbols from
 * LC_SYMTAB, the DWARF from the __DWARF segment presented to libdw as an
 * in-memory ELF image (dwarf_image.c), so that units.c, scopes.c and
 * resolve.c serve Apple images exactly as they serve ELF ones.
 *
 * Addresses: a report gives each image's load address; DWARF and symbols use
 * link-time addresses, where the image starts at its __TEXT segment, so the
 * bias is the load address minus __TEXT's address.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb.h"

/* Errors as find_debug.c words them: ENOEXEC "not a Mach-O file", ESRCH "no slice for …". */
int
pmi_sy_macho_facts(const char *path, const pm_image *img, pm_sy_facts *f)
{
	memset(f, 0, sizeof *f);
	pm_sy_map map;
	int err = pmi_sy_map_file(path, &map);
	if (err)
		return err;
	pm_sy_macho mo;
	err = pmi_sy_macho_read(map.data, map.len, img->arch, img->build_id, &mo);
	if (!err && mo.has_uuid) {
		memcpy(f->build_id, mo.uuid, 16);
		f->build_id_len = 16;
	}
	f->has_dwarf = !err && pmi_sy_macho_has_dwarf(&mo);
	pmi_sy_unmap(&map);
	return err;
}

static uint16_t
elf_machine(uint32_t cputype)
{
	return cputype == 0x01000007 ? EM_X86_64 : EM_AARCH64;
}

static bool
open_slice(pm_sy_map *map, const char *path, const pm_image *img, pm_sy_macho *mo, char *why, size_t why_len)
{
	int err = pmi_sy_map_file(path, map);
	if (!err)
		err = pmi_sy_macho_read(map->data, map->len, img->arch, img->build_id, mo);
	if (err)
		snprintf(why, why_len, "cannot read %s: %s", path,
		         err == ENOEXEC ? "not a Mach-O file" : err == EINVAL ? "damaged Mach-O file" : strerror(err));
	return !err;
}

static void
open_dwarf(pm_sy_module *m, const pm_sy_macho *mo, const char *path, char *why, size_t why_len)
{
	pm_sy_section secs[PM_SY_MACHO_MAX_SECTIONS];
	for (size_t i = 0; i < mo->dwarf_count; i++)
		secs[i] = (pm_sy_section){ .name = mo->dwarf[i].name, .data = mo->data + mo->dwarf[i].offset,
		                           .size = mo->dwarf[i].size };
	size_t size;
	m->dwarf_image = pmi_sy_dwarf_image_of(secs, mo->dwarf_count, elf_machine(mo->cputype), &size);
	m->dwarf_mem = m->dwarf_image ? elf_memory(m->dwarf_image, size) : NULL;
	pmi_sy_module_dwarf(m, m->dwarf_mem, path, why, why_len);
}

bool
pmi_sy_macho_module_open(pm_sy_module *m, const pm_image *img, const pm_sy_files *files, pm_arena *arena,
                        char *why, size_t why_len)
{
	pmi_sy_module_init(m, arena, why);
	pm_sy_macho sym, dw;
	if (!open_slice(&m->maps[0], files->elf_path, img, &sym, why, why_len)) {
		pmi_sy_module_close(m);
		return false;
	}
	m->bias = img->start - sym.text_vmaddr;
	if (!pmi_sy_macho_symtab(&sym, &m->symtab)) {
		snprintf(why, why_len, "out of memory reading the symbols of %s", files->elf_path);
		pmi_sy_module_close(m);
		return false;
	}
	if (!files->dwarf_path)
		return true;
	bool same = strcmp(files->dwarf_path, files->elf_path) == 0;
	if (same)
		dw = sym;
	if (same || open_slice(&m->maps[1], files->dwarf_path, img, &dw, why, why_len))
		open_dwarf(m, &dw, files->dwarf_path, why, why_len);
	return true;
}
