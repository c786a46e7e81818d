/*
 * fuzz_macho.c — libFuzzer target for the Mach-O reader (symbolicate/macho.c),
 * which reads dSYMs and executables that come with reports from anywhere.
 *
 * The first byte picks the architecture asked for (or none); the rest is the
 * file.  Whatever reads is used the way symbolication uses it: every symbol
 * name and every byte range the reader vouched for is touched, so anything
 * pointing outside the input shows up under ASan.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolicate/symb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const arches[] = { NULL, "arm64", "arm64e", "x86_64", "armv7" };
	if (size < 1)
		return 0;
	const char *arch = arches[data[0] % (sizeof arches / sizeof arches[0])];
	/* A copy of exactly the file's bytes, so reading past them is caught. */
	size_t len = size - 1;
	uint8_t *file = malloc(len ? len : 1);
	memcpy(file, data + 1, len);
	pm_sy_macho m;
	if (pm_sy_macho_read(file, len, arch, file, &m) == 0) {
		for (size_t i = 0; i < m.dwarf_count; i++)
			sink += m.data[m.dwarf[i].offset] + m.data[m.dwarf[i].offset + m.dwarf[i].size - 1];
		pm_sy_symtab t;
		if (pm_sy_macho_symtab(&m, &t)) {
			for (size_t i = 0; i < t.count; i++)
				sink += strlen(t.syms[i].name) + (pm_sy_symtab_find(&t, t.syms[i].addr) != NULL);
			pm_sy_symtab_free(&t);
		}
	}
	free(file);
	return 0;
}
