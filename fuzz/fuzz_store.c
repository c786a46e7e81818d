/*
 * fuzz_store.c — libFuzzer target for the report store reading a reports
 * directory it did not write: any names, torn and hostile files
 * (fuzz_check_store in checks.h says how the input describes them).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/checks.h"

/* The reporter is not linked (under its pthread_create wrapper LeakSanitizer
 * takes libFuzzer's own thread start for a leak): no pm_install ran here. */
const char *
pm_reports_dir(void)
{
	return "";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char why[1 << 17];
	if (!fuzz_check_store(data, size, why, sizeof why)) {
		fprintf(stderr, "fuzz_store: %s\n", why);
		abort();
	}
	return 0;
}
