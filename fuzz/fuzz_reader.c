/*
 * fuzz_reader.c — libFuzzer target for one reader on arbitrary bytes,
 * compiled once per reader with -DFUZZ_READ=pm_read_text, pm_read_ips,
 * pm_read_json or pm_read_report (the detector and every reader).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512];
	if (!fuzz_check_read(FUZZ_READ, data, size, why, sizeof why)) {
		fprintf(stderr, "fuzz: %s\n", why);
		abort();
	}
	return 0;
}
