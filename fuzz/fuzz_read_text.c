/* fuzz_read_text.c — libFuzzer target: the .crash text reader on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	if (pm_read_text((const char *)data, size, &r, &err) == PM_OK)
		fuzz_render(&r);
	pm_report_free(&r);
	return 0;
}
