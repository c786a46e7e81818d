/* fuzz_read_any.c — libFuzzer target: format detection and every reader behind pm_read_report. */
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
	pm_format_name(pm_detect_format((const char *)data, size));
	if (pm_read_report((const char *)data, size, &r, &err) == PM_OK)
		fuzz_render(&r);
	pm_report_free(&r);
	return 0;
}
