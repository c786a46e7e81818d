/*
 * fuzz_reader.c — libFuzzer target for one reader on arbitrary bytes,
 * compiled once per reader with -DFUZZ_READ=pm_read_text, pm_read_ips,
 * pm_read_minidump or pm_read_report (the detector and every reader).  Whatever reads is
 * rendered both ways, so a model that points outside itself shows up under
 * ASan.  (The JSON twin's target, fuzz_read_json.c, also checks the round trip.)
 */
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
	if (FUZZ_READ((const char *)data, size, &r, &err) == PM_OK)
		fuzz_render(&r);
	pm_report_free(&r);
	return 0;
}
