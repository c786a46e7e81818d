/*
 * fuzz_upload_answer.c — libFuzzer target for what the upload reads from a
 * server's answer (fuzz_check_answer in checks.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[8192];
	if (!fuzz_check_answer(data, size, why, sizeof why)) {
		fprintf(stderr, "fuzz_upload_answer: %s\n", why);
		abort();
	}
	return 0;
}
