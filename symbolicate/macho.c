/*
 * macho.c — what symbolication needs from a Mach-O file, read from its bytes:
 * the slice for the report's architecture (universal files), LC_UUID, the
 * __TEXT segment's address (runtime address - load address + that = the
 * address DWARF and symbols use), LC_SYMTAB, and the __DWARF segment's
 * sections (a dSYM's Contents/Resources/DWARF/<name>).
 *
 * The file is untrusted: every count, offset and size is checked against the
 * bytes it claims before use.  Only 64-bit little-endian slices are read
 * (arm64, arm64e, x86_64: every Mach-O an Apple report of today names).
 * No OS calls: the caller maps the file (macho_module.c), the fuzzer feeds bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symb.h"

#define MH_MAGIC_64 0xfeedfacfu
#define FAT_MAGIC 0xcafebabeu          /* stored big-endian */

enum {
	LC_SEGMENT_64 = 0x19,
	LC_SYMTAB = 0x2,
	LC_UUID = 0x1b,
	N_STAB = 0xe0,
	N_TYPE = 0x0e,
	N_SECT = 0x0e,
	S_ZEROFILL = 0x1,
	SECTION_TYPE = 0xff,
	HEADER_SIZE = 32,              /* mach_header_64 */
	SEGMENT_SIZE = 72,             /* segment_command_64 */
	SECTION_SIZE = 80,             /* section_64 */
	NLIST_SIZE = 16,               /* nlist_64 */
	FAT_ARCH_SIZE = 20,
	MAX_FAT_ARCHS = 64,
};

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* [off, off + n) lies within len bytes. */
static bool
within(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* A fixed 16-byte Mach-O name field equals s. */
static bool
name_is(const unsigned char *field, const char *s)
{
	return strncmp((const char *)field, s, 16) == 0;
}

/* "__debug_info" -> ".debug_info"; Mach-O cuts names at 16 bytes ("__debug_str_offs"). */
static const char *
dwarf_name(const unsigned char *sectname)
{
	static const char *const names[] = {
		".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_aranges",
		".debug_ranges", ".debug_rnglists", ".debug_line_str", ".debug_str_offsets",
		".debug_addr", ".debug_types",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char want[17];
		/* "__" + the name without its dot, as Mach-O would store it. */
		strcpy(want, "__");
		strncat(want, names[i] + 1, 14);
		if (strncmp((const char *)sectname, want, 16) == 0)
			return names[i];
	}
	return NULL;
}

static int
read_sections(const unsigned char *seg, uint32_t cmdsize, size_t len, pm_sy_macho *m)
{
	uint32_t n = le32(seg + 64);
	if (n > (cmdsize - SEGMENT_SIZE) / SECTION_SIZE)
		return EINVAL;
	for (uint32_t i = 0; i < n && m->dwarf_count < PM_SY_MACHO_MAX_SECTIONS; i++) {
		const unsigned char *s = seg + SEGMENT_SIZE + (size_t)i * SECTION_SIZE;
		const char *name = dwarf_name(s);
		uint64_t size = le64(s + 40);
		uint32_t offset = le32(s + 48), flags = le32(s + 64);
		if (!name || (flags & SECTION_TYPE) == S_ZEROFILL || size == 0)
			continue;
		if (!within(offset, size, len))
			return EINVAL;
		m->dwarf[m->dwarf_count++] = (pm_sy_macho_section){ .name = name, .offset = offset, .size = size };
	}
	return 0;
}

static int
read_command(const unsigned char *c, uint32_t cmd, uint32_t cmdsize, size_t len, pm_sy_macho *m)
{
	switch (cmd) {
	case LC_UUID:
		if (cmdsize < 24)
			return EINVAL;
		memcpy(m->uuid, c + 8, 16);
		m->has_uuid = true;
		return 0;
	case LC_SYMTAB:
		if (cmdsize < 24)
			return EINVAL;
		m->symoff = le32(c + 8);
		m->nsyms = le32(c + 12);
		m->stroff = le32(c + 16);
		m->strsize = le32(c + 20);
		if (!within(m->symoff, (uint64_t)m->nsyms * NLIST_SIZE, len) || !within(m->stroff, m->strsize, len))
			return EINVAL;
		m->has_symtab = true;
		return 0;
	case LC_SEGMENT_64:
		if (cmdsize < SEGMENT_SIZE)
			return EINVAL;
		if (name_is(c + 8, "__TEXT")) {
			m->text_vmaddr = le64(c + 24);
			m->has_text = true;
		}
		return name_is(c + 8, "__DWARF") ? read_sections(c, cmdsize, len, m) : 0;
	default:
		return 0;
	}
}

/* One thin 64-bit slice. */
static int
read_thin(const unsigned char *p, size_t len, pm_sy_macho *m)
{
	*m = (pm_sy_macho){ .data = p, .len = len };
	if (len < HEADER_SIZE || le32(p) != MH_MAGIC_64)
		return ENOEXEC;
	m->cputype = le32(p + 4);
	m->cpusubtype = le32(p + 8) & 0x00ffffff;
	uint32_t ncmds = le32(p + 16), sizeofcmds = le32(p + 20);
	if (!within(HEADER_SIZE, sizeofcmds, len))
		return EINVAL;
	const unsigned char *c = p + HEADER_SIZE, *end = c + sizeofcmds;
	/* Each command is at least 8 bytes, so ncmds is bounded by sizeofcmds too. */
	for (uint32_t i = 0; i < ncmds; i++) {
		if (end - c < 8)
			return EINVAL;
		uint32_t cmd = le32(c), cmdsize = le32(c + 4);
		if (cmdsize < 8 || cmdsize % 8 != 0 || cmdsize > (size_t)(end - c))
			return EINVAL;
		int err = read_command(c, cmd, cmdsize, len, m);
		if (err)
			return err;
		c += cmdsize;
	}
	return 0;
}

static const struct arch {
	const char *name;
	uint32_t cputype, cpusubtype;
} arches[] = {
	{ "arm64", 0x0100000c, 0 },
	{ "arm64e", 0x0100000c, 2 },
	{ "x86_64", 0x01000007, 3 },
	{ "x86_64h", 0x01000007, 8 },
};

static const struct arch *
find_arch(const char *name)
{
	for (size_t i = 0; name && i < sizeof arches / sizeof arches[0]; i++)
		if (strcmp(arches[i].name, name) == 0)
			return &arches[i];
	return NULL;
}

/* 2: the exact architecture, 1: the same CPU, 0: another (any slice fits an unknown arch). */
static int
fit(const struct arch *a, uint32_t cputype, uint32_t cpusubtype)
{
	if (!a)
		return 1;
	if (a->cputype != cputype)
		return 0;
	return a->cpusubtype == (cpusubtype & 0x00ffffff) ? 2 : 1;
}

static bool
uuid_is(const pm_sy_macho *m, const uint8_t *uuid)
{
	return uuid && m->has_uuid && memcmp(m->uuid, uuid, 16) == 0;
}

/* The best slice: the closest architecture, and among equals the one with the UUID. */
static int
read_fat(const unsigned char *p, size_t len, const char *arch, const uint8_t *uuid, pm_sy_macho *out)
{
	uint32_t n = be32(p + 4);
	if (n > MAX_FAT_ARCHS || !within(8, (uint64_t)n * FAT_ARCH_SIZE, len))
		return EINVAL;
	const struct arch *a = find_arch(arch);
	int best = 0, err = ESRCH;
	bool best_uuid = false;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *fa = p + 8 + (size_t)i * FAT_ARCH_SIZE;
		uint32_t offset = be32(fa + 8), size = be32(fa + 12);
		int score = fit(a, be32(fa), be32(fa + 4));
		if (score == 0 || score < best)
			continue;
		if (!within(offset, size, len))
			return EINVAL;
		pm_sy_macho m;
		int e = read_thin(p + offset, size, &m);
		if (e)
			return e;
		bool has = uuid_is(&m, uuid);
		if (score > best || (has && !best_uuid)) {
			*out = m;
			best = score;
			best_uuid = has;
			err = 0;
		}
	}
	return err;
}

int
pmi_sy_macho_read(const void *data, size_t len, const char *arch, const uint8_t *uuid, pm_sy_macho *out)
{
	const unsigned char *p = data;
	memset(out, 0, sizeof *out);
	if (len >= 8 && be32(p) == FAT_MAGIC)
		return read_fat(p, len, arch, uuid, out);
	int err = read_thin(p, len, out);
	if (!err && arch && find_arch(arch) && !fit(find_arch(arch), out->cputype, out->cpusubtype))
		return ESRCH;
	return err;
}

bool
pmi_sy_macho_has_dwarf(const pm_sy_macho *m)
{
	for (size_t i = 0; i < m->dwarf_count; i++)
		if (strcmp(m->dwarf[i].name, ".debug_info") == 0)
			return true;
	return false;
}

bool
pmi_sy_macho_symtab(const pm_sy_macho *m, pm_sy_symtab *t)
{
	memset(t, 0, sizeof *t);
	if (!m->has_symtab || m->nsyms == 0)
		return true;
	t->syms = malloc((size_t)m->nsyms * sizeof *t->syms);
	if (!t->syms)
		return false;
	const char *strs = (const char *)m->data + m->stroff;
	for (uint32_t i = 0; i < m->nsyms; i++) {
		const unsigned char *s = m->data + m->symoff + (size_t)i * NLIST_SIZE;
		uint32_t strx = le32(s);
		uint8_t type = s[4];
		if ((type & N_STAB) || (type & N_TYPE) != N_SECT || strx >= m->strsize ||
		    !memchr(strs + strx, '\0', m->strsize - strx))
			continue;
		const char *name = strs + strx;
		/* C names carry a leading underscore in Mach-O ("_main", "__Z3foov"). */
		if (name[0] == '_')
			name++;
		if (name[0])
			t->syms[t->count++] = (pm_sy_sym){ .addr = le64(s + 8), .name = name, .index = i };
	}
	pmi_sy_symtab_sort(t);
	return true;
}
