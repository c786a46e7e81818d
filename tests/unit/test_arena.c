/* test_arena.c — the bump allocator behind every report. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "formats/model/arena.h"

Test(arena, alloc_zeroes_copy_copies_and_a_full_arena_says_so)
{
	_Alignas(16) char mem[64];
	memset(mem, 0xAA, sizeof mem);
	pm_arena a;
	pmi_arena_init_fixed(&a, mem, sizeof mem);
	const char src[] = "frames";
	char *c = pmi_arena_copy(&a, src, sizeof src, 1);
	cr_assert_not_null(c);
	cr_expect_str_eq(c, "frames");
	uint64_t *z = pmi_arena_alloc(&a, 2 * sizeof *z, _Alignof(uint64_t));
	cr_assert_not_null(z);
	cr_expect_eq((uintptr_t)z % _Alignof(uint64_t), 0);
	cr_expect(z[0] == 0 && z[1] == 0, "alloc must zero what it hands out");
	cr_expect(!pmi_arena_exhausted(&a));
	cr_expect_null(pmi_arena_copy(&a, mem, sizeof mem, 1));
	cr_expect(pmi_arena_exhausted(&a));
}
