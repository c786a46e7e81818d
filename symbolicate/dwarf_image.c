/*
 * dwarf_image.c — the DWARF sections of a debug file, inflated, as a small
 * uncompressed ELF image in memory for libdw (elf_memory).
 *
 * libdw 0.188 inflates every compressed .debug_* section as it opens a file,
 * one after the other, location lists and macros included, which
 * symbolication never reads: for libc that is nearly all the time to the
 * first answer.  Here only the sections a lookup reads are inflated, the
 * largest (.debug_info) on a second thread while this one does the rest.
 * Files without compressed sections, and anything unusual (32-bit or
 * foreign-endian files, relocatable objects, .zdebug or non-zlib
 * compression), are left to libdw: the caller opens the file directly when
 * this returns NULL.
 *
 * The same image carries DWARF that is in no ELF file at all: a dSYM's
 * __DWARF sections (macho_module.c), copied as they are.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "symb.h"

/* Sections libdw would load that symbolication never reads. */
static const char *const unused[] = {
	".debug_loc", ".debug_loclists", ".debug_macro", ".debug_macinfo", ".debug_frame",
	".debug_pubnames", ".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes",
};

typedef struct part {
	const char *name;
	const unsigned char *src; /* the section's bytes, or its zlib stream */
	size_t src_len;
	bool compressed;
	uint64_t size, align;    /* inflated */
	size_t offset;           /* in the image */
	uint32_t name_offset;    /* in .shstrtab */
	char *image;
	bool ok;
} part;

static bool
wanted(const char *name)
{
	if (strcmp(name, ".gnu_debugaltlink") == 0)
		return true;
	if (strncmp(name, ".debug_", 7) != 0)
		return false;
	for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
		if (strcmp(name, unused[i]) == 0)
			return false;
	return true;
}

/* Describe one section; false when libdw had better read the file itself. */
static bool
describe(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, part *p)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	if (!d || (!d->d_buf && d->d_size))
		return false;
	*p = (part){ .name = name, .src = d->d_buf, .src_len = d->d_size, .size = d->d_size,
	             .align = sh->sh_addralign ? sh->sh_addralign : 1 };
	if (!(sh->sh_flags & SHF_COMPRESSED))
		return true;
	GElf_Chdr ch;
	/* A size past any real debug file is a damaged header: let libdw judge it. */
	if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB || d->d_size < sizeof(Elf64_Chdr) ||
	    ch.ch_size > ((uint64_t)1 << 36))
		return false;
	p->compressed = true;
	p->src += sizeof(Elf64_Chdr);
	p->src_len -= sizeof(Elf64_Chdr);
	p->size = ch.ch_size;
	p->align = ch.ch_addralign ? ch.ch_addralign : 1;
	return true;
}

/* Inflate a zlib stream as raw deflate: the Adler-32 check zlib would add
 * costs as much as a tenth of the time, and the build id has already vouched
 * for the file. */
static bool
inflate_raw(const unsigned char *src, size_t src_len, unsigned char *dst, size_t dst_len)
{
	z_stream z = { 0 };
	if (src_len < 2 || (src[0] & 0x0f) != Z_DEFLATED || inflateInit2(&z, -MAX_WBITS) != Z_OK)
		return false;
	z.next_in = (Bytef *)src + 2;
	z.avail_in = (uInt)(src_len - 2);
	z.next_out = dst;
	z.avail_out = (uInt)dst_len;
	bool ok = src_len - 2 <= UINT_MAX && dst_len <= UINT_MAX && inflate(&z, Z_FINISH) == Z_STREAM_END &&
	          z.total_out == dst_len;
	inflateEnd(&z);
	return ok;
}

static void *
fill(void *arg)
{
	part *p = arg;
	unsigned char *dst = (unsigned char *)p->image + p->offset;
	if (p->compressed) {
		p->ok = inflate_raw(p->src, p->src_len, dst, p->size);
	} else {
		memcpy(dst, p->src, p->size);
		p->ok = true;
	}
	return NULL;
}

/* Fill every part, the largest on a thread of its own. */
static bool
fill_all(part *parts, size_t n)
{
	size_t big = 0;
	for (size_t i = 1; i < n; i++)
		if (parts[i].size > parts[big].size)
			big = i;
	pthread_t t;
	bool threaded = n > 1 && pthread_create(&t, NULL, fill, &parts[big]) == 0;
	for (size_t i = 0; i < n; i++)
		if (i != big || !threaded)
			fill(&parts[i]);
	if (threaded)
		pthread_join(t, NULL);
	for (size_t i = 0; i < n; i++)
		if (!parts[i].ok)
			return false;
	return true;
}

static size_t
align_up(size_t v, uint64_t a)
{
	return a > 1 && a <= 4096 ? (v + (size_t)a - 1) & ~((size_t)a - 1) : v;
}

/* Lay the image out: header, sections, .shstrtab, section headers.  Returns its size. */
static size_t
lay_out(part *parts, size_t n, size_t *strtab, size_t *strtab_len, size_t *shoff)
{
	size_t at = sizeof(Elf64_Ehdr), names = 1;
	for (size_t i = 0; i < n; i++) {
		at = align_up(at, parts[i].align);
		parts[i].offset = at;
		parts[i].name_offset = (uint32_t)names;
		at += parts[i].size;
		names += strlen(parts[i].name) + 1;
	}
	*strtab = at;
	*strtab_len = names + sizeof ".shstrtab";
	*shoff = align_up(at + *strtab_len, 8);
	return *shoff + (n + 2) * sizeof(Elf64_Shdr);
}

static void
write_headers(char *image, const GElf_Ehdr *from, const part *parts, size_t n, size_t strtab, size_t strtab_len,
              size_t shoff)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	memcpy(eh->e_ident, from->e_ident, EI_NIDENT);
	eh->e_type = from->e_type;
	eh->e_machine = from->e_machine;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof *eh;
	eh->e_shoff = shoff;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (Elf64_Half)(n + 2);
	eh->e_shstrndx = (Elf64_Half)(n + 1);
	Elf64_Shdr *sh = (Elf64_Shdr *)(image + shoff);
	char *names = image + strtab;
	for (size_t i = 0; i < n; i++) {
		strcpy(names + parts[i].name_offset, parts[i].name);
		sh[i + 1] = (Elf64_Shdr){ .sh_name = parts[i].name_offset, .sh_type = SHT_PROGBITS,
		                          .sh_offset = parts[i].offset, .sh_size = parts[i].size,
		                          .sh_addralign = parts[i].align };
	}
	size_t name = strtab_len - sizeof ".shstrtab";
	strcpy(names + name, ".shstrtab");
	sh[n + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)name, .sh_type = SHT_STRTAB, .sh_offset = strtab,
	                          .sh_size = strtab_len, .sh_addralign = 1 };
}

static bool
collect(Elf *elf, part **out, size_t *count)
{
	size_t shstrndx, cap = 0, n = 0;
	part *parts = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		bool zdebug = strncmp(name, ".zdebug", 7) == 0;
		if (zdebug || (wanted(name) && sh.sh_type != SHT_NOBITS &&
		               (!pmi_grow((void **)&parts, &cap, n + 1, sizeof *parts) ||
		                !describe(scn, &sh, name, &parts[n++])))) {
			free(parts);
			return false;
		}
	}
	*out = parts;
	*count = n;
	return true;
}

/* The image of these parts; NULL when out of memory or a section does not inflate. */
static char *
build(part *parts, size_t n, const GElf_Ehdr *eh, size_t *size)
{
	size_t strtab, strtab_len, shoff;
	*size = lay_out(parts, n, &strtab, &strtab_len, &shoff);
	char *image = calloc(1, *size);
	for (size_t i = 0; image && i < n; i++)
		parts[i].image = image;
	if (image && fill_all(parts, n)) {
		write_headers(image, eh, parts, n, strtab, strtab_len, shoff);
		return image;
	}
	free(image);
	return NULL;
}

static bool
any_compressed(const part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (parts[i].compressed)
			return true;
	return false;
}

char *
pmi_sy_dwarf_image(Elf *elf, size_t *size)
{
	GElf_Ehdr eh;
	part *parts;
	size_t n;
	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type == ET_REL ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
	    !collect(elf, &parts, &n))
		return NULL;
	/* Uncompressed sections libdw reads in place from the mapped file: a copy would only cost. */
	char *image = any_compressed(parts, n) ? build(parts, n, &eh, size) : NULL;
	free(parts);
	return image;
}

/* Host byte order: the sections are copied as they are, and Mach-O slices we read are little-endian. */
static void
host_header(GElf_Ehdr *eh, uint16_t e_machine)
{
	memset(eh, 0, sizeof *eh);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = e_machine;
}

char *
pmi_sy_dwarf_image_of(const pm_sy_section *secs, size_t n, uint16_t e_machine, size_t *size)
{
	part *parts = calloc(n ? n : 1, sizeof *parts);
	if (!parts)
		return NULL;
	for (size_t i = 0; i < n; i++)
		parts[i] = (part){ .name = secs[i].name, .src = secs[i].data, .src_len = secs[i].size,
		                   .size = secs[i].size, .align = 1 };
	GElf_Ehdr eh;
	host_header(&eh, e_machine);
	char *image = build(parts, n, &eh, size);
	free(parts);
	return image;
}
