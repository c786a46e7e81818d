/*
 * fuzz_check.c — libFuzzer target for one check of checks.h on arbitrary
 * bytes, compiled once per check with -DFUZZ_CHECK=fuzz_check_store (a
 * reports directory), fuzz_check_group_record (a crash group's record),
 * fuzz_check_answer (a server's answer),
 * fuzz_check_macho (the Mach-O reader of the dSYM lookup),
 * fuzz_check_table (pre-parsed symbol tables) or fuzz_check_core (core files).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	if (!FUZZ_CHECK(data, size, why, sizeof why)) {
		fprintf(stderr, "fuzz: %s\n", why);
		abort();
	}
	return 0;
}
