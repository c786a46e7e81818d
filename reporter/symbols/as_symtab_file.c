/*
 * as_symtab_file.c — AS-SAFE .symtab from an ELF file on disk: the image's
 * own file, or the separate debug file named by its build id (Debian's
 * *-dbg packages install /usr/lib/debug/.build-id/xx/rest.debug).
 *
 * A file is used only when its NT_GNU_BUILD_ID equals the image's: a package
 * upgrade may have replaced it since the process started, and a stale
 * .symtab would name the wrong functions.  An image without a build id
 * cannot be checked, so it gets only its in-memory .dynsym.
 *
 * Reads, all with pread and all checked against the file size: the ELF
 * header, the section headers (into the working area), the notes (through
 * the chunk buffer) only when there is a .symtab, the symbols chunk by
 * chunk, then the names the table needs (as_symtab_names.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as_images.h"
#include "as_memory.h"
#include "as_symbols_internal.h"

/* What a file's build-id note says about the image. */
typedef enum id_match { ID_NONE, ID_SAME, ID_OTHER } id_match;

enum { MAX_PHDRS = 64 };

static bool
read_at(int fd, void *dst, size_t n, uint64_t off)
{
	char *d = dst;
	while (n > 0) {
		ssize_t r = pread(fd, d, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		d += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return true;
}

static bool
in_file(uint64_t off, uint64_t size, uint64_t file_size)
{
	return off <= file_size && size <= file_size - off;
}

static id_match
compare_id(const unsigned char *desc, uint32_t len, const pm_image *img)
{
	/* pm_image keeps at most PM_BUILD_ID_MAX bytes of the id. */
	size_t n = len < PM_BUILD_ID_MAX ? len : PM_BUILD_ID_MAX;
	return n == img->build_id_len && memcmp(desc, img->build_id, n) == 0 ? ID_SAME : ID_OTHER;
}

static id_match
notes_id(const unsigned char *p, size_t size, const pm_image *img)
{
	size_t at, len;
	if (!as_elf_find_build_id(p, size, &at, &len))
		return ID_NONE;
	return compare_id(p + at, (uint32_t)len, img);
}

static id_match
region_id(pm_sym_work *s, int fd, uint64_t off, uint64_t size, uint64_t file_size, const pm_image *img)
{
	if (size > sizeof s->chunk.bytes || !in_file(off, size, file_size) ||
	    !read_at(fd, s->chunk.bytes, (size_t)size, off))
		return ID_NONE;
	return notes_id(s->chunk.bytes, (size_t)size, img);
}

/* The build id from the note sections, else from the PT_NOTE segments. */
static id_match
file_id(pm_sym_work *s, int fd, const Elf64_Ehdr *eh, const Elf64_Shdr *sh, uint64_t file_size,
        const pm_image *img)
{
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		id_match m = sh[i].sh_type == SHT_NOTE
		                     ? region_id(s, fd, sh[i].sh_offset, sh[i].sh_size, file_size, img) : ID_NONE;
		if (m != ID_NONE)
			return m;
	}
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return ID_NONE;
	for (unsigned i = 0; i < eh->e_phnum && i < MAX_PHDRS; i++) {
		Elf64_Phdr ph;
		if (!read_at(fd, &ph, sizeof ph, eh->e_phoff + i * sizeof ph))
			return ID_NONE;
		id_match m = ph.p_type == PT_NOTE ? region_id(s, fd, ph.p_offset, ph.p_filesz, file_size, img) : ID_NONE;
		if (m != ID_NONE)
			return m;
	}
	return ID_NONE;
}

static bool
find_symtab(const Elf64_Shdr *sh, unsigned n, uint64_t file_size, Elf64_Shdr *symtab, Elf64_Shdr *strtab)
{
	for (unsigned i = 0; i < n; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= n)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (str->sh_type != SHT_STRTAB || !in_file(sh[i].sh_offset, sh[i].sh_size, file_size) ||
		    !in_file(str->sh_offset, str->sh_size, file_size))
			return false;
		*symtab = sh[i];
		*strtab = *str;
		return true;
	}
	return false;
}

static bool
read_fd(const void *fd, uint64_t off, void *dst, size_t n)
{
	return read_at(*(const int *)fd, dst, n, off);
}

static bool
load_symtab(pm_sym_work *s, int fd, const pm_image *img)
{
	struct stat st;
	Elf64_Ehdr eh;
	if (fstat(fd, &st) != 0 || st.st_size <= 0 || !read_at(fd, &eh, sizeof eh, 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		return false;
	uint64_t file_size = (uint64_t)st.st_size;
	size_t sh_bytes = (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
	if (sh_bytes > s->area_size || !in_file(eh.e_shoff, sh_bytes, file_size) ||
	    !read_at(fd, s->area, sh_bytes, eh.e_shoff))
		return false;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(void *)s->area;
	Elf64_Shdr symtab, strtab;
	/* A stripped file (libc.so.6) is refused before its notes are read. */
	if (!find_symtab(sh, eh.e_shnum, file_size, &symtab, &strtab) ||
	    file_id(s, fd, &eh, sh, file_size, img) != ID_SAME)
		return false;
	/* The section headers have served: the table now takes the whole area. */
	pm_symtab *t = &s->table;
	if (!as_symtab_place(t, s->area, s->area_size, strtab.sh_size) ||
	    !as_symtab_fill(t, &s->chunk, symtab.sh_offset, symtab.sh_size / sizeof(Elf64_Sym), read_fd, &fd))
		return false;
	as_symtab_finish(t, &(pm_sym_names){ .read = read_fd, .ctx = &fd, .at = strtab.sh_offset });
	return true;
}

static bool
from_file(pm_sym_work *s, const char *path, const pm_image *img, const pm_as_image *ai)
{
	as_symtab_reset(&s->table, ai, &s->want);
	if (img->build_id_len == 0)
		return false;
	int fd = as_open_file(AT_FDCWD, path, AS_OPEN_NO_LINKS);
	if (fd < 0)
		return false;
	bool ok = load_symtab(s, fd, img);
	close(fd);
	return ok;
}

bool
as_symtab_from_image_file(pm_sym_work *s, const pm_image *img, const pm_as_image *ai, const pm_mem *mem)
{
	(void)mem;
	/* "[vdso]" and other pseudo-paths name no file. */
	return img->path && img->path[0] == '/' && from_file(s, img->path, img, ai);
}

/* /usr/lib/debug/.build-id/ + first byte in hex + / + the rest in hex + .debug */
static void
debug_path(char *out, const pm_image *img)
{
	static const char prefix[] = "/usr/lib/debug/.build-id/", hex[] = "0123456789abcdef";
	char *p = out;
	memcpy(p, prefix, sizeof prefix - 1);
	p += sizeof prefix - 1;
	for (unsigned i = 0; i < img->build_id_len; i++) {
		if (i == 1)
			*p++ = '/';
		*p++ = hex[img->build_id[i] >> 4];
		*p++ = hex[img->build_id[i] & 0xf];
	}
	memcpy(p, ".debug", sizeof ".debug");
}

bool
as_symtab_from_debug_file(pm_sym_work *s, const pm_image *img, const pm_as_image *ai, const pm_mem *mem)
{
	(void)mem;
	debug_path(s->debug_path, img);
	return from_file(s, s->debug_path, img, ai);
}
