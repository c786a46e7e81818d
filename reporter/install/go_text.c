/*
 * go_text.c — where a Go executable's own code lies.  NOT AS-safe: runs at
 * install.
 *
 * Go turns a fault in Go code (a nil dereference) into a panic the program
 * may recover from (net/http recovers one per request); a fault in the C
 * code a cgo program calls is a crash.  The Go linker brackets Go's code
 * with the symbols runtime.text and runtime.etext, and puts C objects
 * outside them, so the fault's pc tells the two apart (as_handler.c).
 * Looked for only when another handler sits beside ours (pmi_go_text_note).
 * Found in the executable's .symtab; an executable without .gopclntab is
 * not Go, and a stripped one has no range (every fault is reported).
 */
#include "go_text.h"

#include "as_capture.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read with pread, not mmap: a file mapping costs hundreds of microseconds
 * at every start (page faults, unmapping), a few reads tens. */
typedef struct elf_file {
	int fd;
	uint64_t size;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;           /* e_shnum of them */
} elf_file;

/* Section s's bytes, malloc'd and NUL-terminated; NULL when unreadable. */
static char *
read_section(const elf_file *f, const Elf64_Shdr *s)
{
	if (s->sh_offset > f->size || s->sh_size > f->size - s->sh_offset)
		return NULL;
	char *buf = malloc(s->sh_size + 1);
	if (buf && pread(f->fd, buf, s->sh_size, (off_t)s->sh_offset) != (ssize_t)s->sh_size) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[s->sh_size] = '\0';
	return buf;
}

static bool
open_elf(elf_file *f)
{
	Elf64_Ehdr *eh = &f->eh;
	if (pread(f->fd, eh, sizeof *eh, 0) != (ssize_t)sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	Elf64_Shdr table = { .sh_offset = eh->e_shoff, .sh_size = (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) };
	f->sh = (Elf64_Shdr *)read_section(f, &table);
	return f->sh != NULL;
}

static bool
is_go(const elf_file *f)
{
	const Elf64_Shdr *names = &f->sh[f->eh.e_shstrndx];
	char *str = read_section(f, names);
	bool go = false;
	for (unsigned i = 0; str && i < f->eh.e_shnum && !go; i++)
		go = f->sh[i].sh_name < names->sh_size && strcmp(str + f->sh[i].sh_name, ".gopclntab") == 0;
	free(str);
	return go;
}

/* runtime.text and runtime.etext in one symbol table, as linked. */
static void
scan_symtab(const elf_file *f, const Elf64_Shdr *s, uint64_t *lo, uint64_t *hi)
{
	if (s->sh_link >= f->eh.e_shnum)
		return;
	const Elf64_Shdr *names = &f->sh[s->sh_link];
	Elf64_Sym *syms = (Elf64_Sym *)read_section(f, s);
	char *str = syms ? read_section(f, names) : NULL;
	for (size_t k = 0; str && k < s->sh_size / sizeof *syms && !(*lo && *hi); k++) {
		if (syms[k].st_name >= names->sh_size)
			continue;
		const char *name = str + syms[k].st_name;
		if (strcmp(name, "runtime.text") == 0)
			*lo = syms[k].st_value;
		else if (strcmp(name, "runtime.etext") == 0)
			*hi = syms[k].st_value;
	}
	free(str);
	free(syms);
}

static bool
linked_range(const elf_file *f, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	for (unsigned i = 0; i < f->eh.e_shnum; i++)
		if (f->sh[i].sh_type == SHT_SYMTAB && f->sh[i].sh_entsize == sizeof(Elf64_Sym))
			scan_symtab(f, &f->sh[i], lo, hi);
	return *lo && *hi > *lo;
}

bool
pmi_go_text(uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	elf_file f = { .fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC) };
	struct stat st;
	if (f.fd < 0)
		return false;
	f.size = fstat(f.fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	uint64_t a, b;
	bool go = open_elf(&f) && is_go(&f);
	if (go && linked_range(&f, &a, &b)) {
		/* A position-independent executable is loaded elsewhere than linked. */
		uint64_t bias = f.eh.e_type == ET_DYN ? getauxval(AT_ENTRY) - f.eh.e_entry : 0;
		*lo = a + bias;
		*hi = b + bias;
	}
	free(f.sh);
	close(f.fd);
	return go;
}

void
pmi_go_text_note(const struct sigaction *sa)
{
	pm_facts *f = &as_g.facts;
	if (!sa || sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN || f->go_text_looked)
		return;
	f->go_text_looked = true;
	f->go_exe = pmi_go_text(&f->go_text_lo, &f->go_text_hi);
}
