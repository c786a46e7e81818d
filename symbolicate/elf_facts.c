/*
 * elf_facts.c — what must be known about a candidate file before it is
 * trusted: its build id (the only proof that it describes the crashed
 * image), whether it holds DWARF, and where its .gnu_debuglink points.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb.h"

static bool
section_has_dwarf(Elf *elf, size_t shstrndx, Elf_Scn *scn)
{
	GElf_Shdr sh;
	if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
		return false;
	const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0);
}

static bool
has_dwarf(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn))
		if (section_has_dwarf(elf, shstrndx, scn))
			return true;
	return false;
}

static void
read_facts(Elf *elf, pm_sy_facts *f)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
	if (n > 0) {
		f->build_id_len = (size_t)n < sizeof f->build_id ? (size_t)n : sizeof f->build_id;
		memcpy(f->build_id, id, f->build_id_len);
	}
	f->has_dwarf = has_dwarf(elf);
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	/* A link is a file name: one with a slash or a dot-dot could leave the directory it is looked for in. */
	if (link && !strchr(link, '/') && strcmp(link, "..") != 0 && strlen(link) < sizeof f->debuglink)
		strcpy(f->debuglink, link);
}

int
pmi_sy_open_file(const char *path)
{
	/* Paths come from reports, which may come from anywhere: a FIFO would block, a device would not end. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	return fd;
}

int
pmi_sy_facts_read(const char *path, pm_sy_facts *f)
{
	memset(f, 0, sizeof *f);
	int fd = pmi_sy_open_file(path);
	if (fd < 0)
		return errno == EINVAL ? ENOEXEC : errno;
	int err = 0;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		read_facts(elf, f);
	else
		err = ENOEXEC;
	elf_end(elf);
	close(fd);
	return err;
}

void
pmi_sy_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * len] = '\0';
}

bool
pmi_sy_same_id(const uint8_t *want, size_t want_len, const uint8_t *have, size_t have_len)
{
	return (have_len == want_len || (want_len == 16 && have_len > want_len)) &&
	       memcmp(have, want, want_len) == 0;
}
