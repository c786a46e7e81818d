/*
 * check_table.c — what must hold when symbolication reads a pre-parsed
 * symbol table (symbolicate/table.c) found in a debug dir (checks.h).
 */
#include "fuzz/checks.h"
#include "formats/model/arena.h"

#include <stdlib.h>
#include <string.h>

#include "symbolicate/symb.h"

/* Lookups at every range start and between them: the frames point inside the table. */
static bool
look_up(const pm_sy_table *t, char *why, size_t cap)
{
	pm_arena arena;
	pmi_arena_init_heap(&arena);
	pm_sy_strings strings = { .arena = &arena };
	pm_sy_locs out = { 0 };
	bool ok = true;
	for (size_t i = 0; ok && i < t->range_count && i < 4096; i++) {
		uint64_t lo;
		memcpy(&lo, t->ranges + i * PM_SY_TABLE_RANGE, 8);
		/* Three pcs around the start (wrapping at the ends of the address space). */
		for (uint64_t k = 0; ok && k < 3; k++) {
			uint64_t pc = lo - 1 + k;
			out.len = 0;
			if (pmi_sy_table_resolve(t, 0, pc, pc, &strings, &out) == PM_SY_NOMEM)
				ok = fuzz_say(why, cap, "out of memory at 0x%llx", (unsigned long long)pc);
		}
	}
	free(out.v);
	pmi_sy_strings_free(&strings);
	pmi_arena_free(&arena);
	return ok;
}

bool
fuzz_check_table(const uint8_t *data, size_t size, char *why, size_t cap)
{
	/* A copy of exactly these bytes, so a read past them is caught under ASan. */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return true;
	memcpy(copy, data, size);
	pm_sy_table t;
	char reason[256];
	memset(&t, 0, sizeof t);
	bool ok = !pmi_sy_table_check(&t, copy, size, reason, sizeof reason) || look_up(&t, why, cap);
	free(copy);
	return ok;
}
