/*
 * as_eh_frame.c — AS-SAFE: the .eh_frame of an image that has no
 * .eh_frame_hdr to find it by (see as_images.h).  gcc links a -static
 * executable without one (no --eh-frame-hdr), so its program headers do
 * not say where its unwind tables are; its section headers, which are not
 * loaded, do.  They are read from the file, once the file is known to be
 * the one mapped: its first page is the image's first page in the target.
 */
#include "as_images.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

enum { CHUNK = 512, SHDRS = CHUNK / sizeof(Elf64_Shdr), SHNUM_MAX = 4096 };

static bool
pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return off <= (uint64_t)INT64_MAX && pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* The file's first page equals the target's at base, compared a chunk at a time. */
static bool
same_first_page(int fd, const pm_mem *mem, uint64_t base)
{
	uint8_t a[CHUNK], b[CHUNK];
	for (uint64_t at = 0; at < PM_MEM_PAGE; at += CHUNK)
		if (!pread_all(fd, a, CHUNK, at) || !pm_mem_read(mem, base + at, b, CHUNK) || memcmp(a, b, CHUNK) != 0)
			return false;
	return true;
}

/* The link-time address of the PROGBITS section named .eh_frame, or 0. */
static uint64_t
find_section(int fd, const Elf64_Ehdr *eh)
{
	static const char want[] = ".eh_frame";
	Elf64_Shdr names, sh[SHDRS];
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shnum > SHNUM_MAX ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    !pread_all(fd, &names, sizeof names, eh->e_shoff + eh->e_shstrndx * sizeof names))
		return 0;
	for (unsigned first = 0; first < eh->e_shnum; first += SHDRS) {
		unsigned n = eh->e_shnum - first < SHDRS ? eh->e_shnum - first : SHDRS;
		if (!pread_all(fd, sh, n * sizeof *sh, eh->e_shoff + first * sizeof *sh))
			return 0;
		for (unsigned i = 0; i < n; i++) {
			char name[sizeof want];
			if (sh[i].sh_type == SHT_PROGBITS && sh[i].sh_addr != 0 && sh[i].sh_name < names.sh_size &&
			    names.sh_size - sh[i].sh_name >= sizeof want &&
			    pread_all(fd, name, sizeof name, names.sh_offset + sh[i].sh_name) &&
			    memcmp(name, want, sizeof want) == 0)
				return sh[i].sh_addr;
		}
	}
	return 0;
}

uint64_t
as_eh_frame_from_file(const char *path, const pm_mem *mem, uint64_t base, uint64_t bias)
{
	int fd = path[0] == '/' ? as_open_file(AT_FDCWD, path, AS_OPEN_NO_LINKS) : -1;
	if (fd < 0)
		return 0;
	Elf64_Ehdr eh;
	uint64_t at = same_first_page(fd, mem, base) && pread_all(fd, &eh, sizeof eh, 0) ? find_section(fd, &eh) : 0;
	close(fd);
	/* CFI entries are aligned: an odd address is no .eh_frame (and the unwinder's tag, as_cfi_bare). */
	return at && !((bias + at) & 1) ? bias + at : 0;
}
