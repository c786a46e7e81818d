/*
 * fuzz_table.c — libFuzzer target for the pre-parsed symbol table reader
 * (fuzz_check_table in checks.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	if (!fuzz_check_table(data, size, why, sizeof why)) {
		fprintf(stderr, "fuzz_table: %s\n", why);
		abort();
	}
	return 0;
}
