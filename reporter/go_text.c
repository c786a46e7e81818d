/*
 * go_text.c — where a Go executable's own code lies.  NOT AS-safe: runs at
 * install.
 *
 * Go turns a fault in Go code (a nil dereference) into a panic the program
 * may recover from (net/http recovers one per request); a fault in the C
 * code a cgo program calls is a crash.  The Go linker brackets Go's code
 * with the symbols runtime.text and runtime.etext, and puts C objects
 * outside them, so the fault's pc tells the two apart (as_handler.c).
 * Found in the executable's .symtab; an executable without .gopclntab is
 * not Go, and a stripped one has no range (every fault is reported).
 */
#include "go_text.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct elf_file {
	const unsigned char *p;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
} elf_file;

static bool
in_file(const elf_file *f, uint64_t off, uint64_t n)
{
	return off <= f->size && n <= f->size - off;
}

static const Elf64_Shdr *
section_at(const elf_file *f, unsigned i)
{
	return i < f->eh->e_shnum ? &f->sh[i] : NULL;
}

/* The NUL-terminated string at off of section strtab, NULL when out of it. */
static const char *
string_at(const elf_file *f, const Elf64_Shdr *strtab, uint64_t off)
{
	if (!strtab || off >= strtab->sh_size || !in_file(f, strtab->sh_offset, strtab->sh_size))
		return NULL;
	const char *s = (const char *)f->p + strtab->sh_offset + off;
	return memchr(s, '\0', strtab->sh_size - off) ? s : NULL;
}

static bool
open_elf(elf_file *f)
{
	if (f->size < sizeof(Elf64_Ehdr))
		return false;
	f->eh = (const Elf64_Ehdr *)f->p;
	const Elf64_Ehdr *eh = f->eh;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || !in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return false;
	f->sh = (const Elf64_Shdr *)(f->p + eh->e_shoff);
	return true;
}

static bool
is_go(const elf_file *f)
{
	const Elf64_Shdr *names = section_at(f, f->eh->e_shstrndx);
	for (unsigned i = 0; i < f->eh->e_shnum; i++) {
		const char *name = string_at(f, names, f->sh[i].sh_name);
		if (name && strcmp(name, ".gopclntab") == 0)
			return true;
	}
	return false;
}

/* runtime.text and runtime.etext as linked (before relocation), or false. */
static bool
linked_range(const elf_file *f, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	for (unsigned i = 0; i < f->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &f->sh[i];
		if (s->sh_type != SHT_SYMTAB || s->sh_entsize != sizeof(Elf64_Sym) || !in_file(f, s->sh_offset, s->sh_size))
			continue;
		const Elf64_Shdr *strtab = section_at(f, s->sh_link);
		const Elf64_Sym *syms = (const Elf64_Sym *)(f->p + s->sh_offset);
		for (size_t k = 0; k < s->sh_size / sizeof *syms && !(*lo && *hi); k++) {
			const char *name = string_at(f, strtab, syms[k].st_name);
			if (name && strcmp(name, "runtime.text") == 0)
				*lo = syms[k].st_value;
			else if (name && strcmp(name, "runtime.etext") == 0)
				*hi = syms[k].st_value;
		}
	}
	return *lo && *hi > *lo;
}

bool
pmi_go_text(uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	elf_file f = { .p = map, .size = (size_t)st.st_size };
	uint64_t a, b;
	bool found = open_elf(&f) && is_go(&f) && linked_range(&f, &a, &b);
	if (found) {
		/* A position-independent executable is loaded elsewhere than linked. */
		uint64_t bias = f.eh->e_type == ET_DYN ? getauxval(AT_ENTRY) - f.eh->e_entry : 0;
		*lo = a + bias;
		*hi = b + bias;
	}
	munmap(map, (size_t)st.st_size);
	return found;
}
