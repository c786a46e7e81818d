/*
 * core_exe.c — the executable's mappings of a core that names no file:
 * qemu-user writes no NT_FILE (nor the pages of code it can read back), so
 * nothing says which file holds the code at which address.  Given the
 * executable (pm_core_options.exe), its PT_LOADs are placed where AT_PHDR
 * says its program headers were, and become the core's file mappings, as
 * NT_FILE would have given them.  NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PHDRS_MAX = 64 };

static bool
read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* The link-time address of the program headers: PT_PHDR's, else within the PT_LOAD at file offset 0. */
static bool
phdrs_vaddr(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, uint64_t *out)
{
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_PHDR) {
			*out = ph[i].p_vaddr;
			return true;
		}
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0 && eh->e_phoff < ph[i].p_filesz) {
			*out = ph[i].p_vaddr + eh->e_phoff;
			return true;
		}
	return false;
}

static pm_err
place(pm_core *c, const Elf64_Ehdr *eh, const Elf64_Phdr *ph, uint64_t bias)
{
	uint64_t page = pmi_core_auxv(c, AT_PAGESZ);
	if (page == 0 || (page & (page - 1)) != 0)
		page = 4096;
	c->maps = calloc(eh->e_phnum, sizeof *c->maps);
	if (!c->maps)
		return PM_E_NOMEM;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		uint64_t at = ph[i].p_vaddr + bias, end = at + ph[i].p_filesz;
		if (ph[i].p_type != PT_LOAD || ph[i].p_filesz == 0 || end < at || end > UINT64_MAX - page)
			continue;
		c->maps[c->nmaps++] = (pm_core_mapping){ .start = at & ~(page - 1), .end = (end + page - 1) & ~(page - 1),
		                                         .offset = ph[i].p_offset & ~(page - 1), .path = c->src->exe };
	}
	c->page_size = page;
	return PM_OK;
}

pm_err
pmi_core_exe_maps(pm_core *c)
{
	uint64_t phdr = pmi_core_auxv(c, AT_PHDR);
	if (c->nmaps || !c->src->exe || !phdr)
		return PM_OK;
	int fd = open(c->src->exe, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return PM_OK;
	struct stat st;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[PHDRS_MAX];
	uint64_t vaddr;
	uint16_t machine = c->arch == PM_CORE_ARCH_AARCH64 ? EM_AARCH64 : EM_X86_64;
	pm_err e = PM_OK;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read_at(fd, &eh, sizeof eh, 0) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == machine &&
	    eh.e_phentsize == sizeof *ph && eh.e_phnum > 0 && eh.e_phnum <= PHDRS_MAX &&
	    read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff) && phdrs_vaddr(&eh, ph, &vaddr))
		e = place(c, &eh, ph, phdr - vaddr);
	close(fd);
	return e;
}
