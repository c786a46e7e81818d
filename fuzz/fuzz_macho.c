/*
 * fuzz_macho.c — libFuzzer target for the Mach-O reader of the dSYM lookup
 * (fuzz_check_macho in checks.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	if (!fuzz_check_macho(data, size, why, sizeof why)) {
		fprintf(stderr, "fuzz_macho: %s\n", why);
		abort();
	}
	return 0;
}
