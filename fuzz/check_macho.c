/*
 * check_macho.c — what must hold when symbolication reads a Mach-O file
 * (symbolicate/macho.c), which comes with reports from anywhere (checks.h).
 */
#include "fuzz/checks.h"

#include <stdlib.h>
#include <string.h>

#include "symbolicate/symb.h"

/* p..p+n lies inside the slice. */
static bool
inside(const pm_sy_macho *m, const void *p, size_t n)
{
	const unsigned char *c = p;
	return c >= m->data && c <= m->data + m->len && n <= (size_t)(m->data + m->len - c);
}

/* Every section and symbol name the reader vouched for lies inside the slice. */
static bool
check_slice(const pm_sy_macho *m, const uint8_t *file, size_t size, char *why, size_t cap)
{
	if (!(m->data >= file && m->len <= size && (size_t)(m->data - file) <= size - m->len))
		return fuzz_say(why, cap, "the slice lies outside the file");
	for (size_t i = 0; i < m->dwarf_count; i++)
		if (m->dwarf[i].offset > m->len || m->dwarf[i].size > m->len - m->dwarf[i].offset)
			return fuzz_say(why, cap, "section %s past the slice", m->dwarf[i].name);
	pm_sy_symtab t;
	if (!pmi_sy_macho_symtab(m, &t))
		return true;
	bool ok = true;
	for (size_t i = 0; ok && i < t.count; i++) {
		const char *name = t.syms[i].name;
		ok = inside(m, name, 1) && memchr(name, '\0', (size_t)(m->data + m->len - (const unsigned char *)name));
		if (ok && i > 0 && t.syms[i - 1].addr >= t.syms[i].addr)
			ok = fuzz_say(why, cap, "symbols not sorted at %zu", i);
		else if (!ok)
			fuzz_say(why, cap, "symbol %zu's name lies outside the slice", i);
	}
	pmi_sy_symtab_free(&t);
	return ok;
}

/* The first byte picks the architecture asked for (or none); the rest is the file. */
bool
fuzz_check_macho(const uint8_t *data, size_t size, char *why, size_t cap)
{
	static const char *const arches[] = { NULL, "arm64", "arm64e", "x86_64", "armv7" };
	if (size < 1)
		return true;
	const char *arch = arches[data[0] % (sizeof arches / sizeof arches[0])];
	/* A copy of exactly the file's bytes, so a read past them is caught under ASan. */
	size_t len = size - 1;
	uint8_t *file = malloc(len ? len : 1);
	if (!file)
		return true;
	memcpy(file, data + 1, len);
	pm_sy_macho m;
	bool ok = pmi_sy_macho_read(file, len, arch, file, &m) != 0 || check_slice(&m, file, len, why, cap);
	free(file);
	return ok;
}
