/*
 * fuzz_reader.c — libFuzzer target for one reader on arbitrary bytes,
 * compiled once per reader with -DFUZZ_READ=pm_read_text, pm_read_ips,
 * pm_read_json or pm_read_report (the detector and every reader).  Whatever
 * reads must render and survive the round trip through the JSON twin
 * (fuzz_report.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	if (FUZZ_READ((const char *)data, size, &r, &err) == PM_OK) {
		fuzz_render_text(&r);
		const char *where = "";
		if (!fuzz_json_round_trip(&r, &where)) {
			fprintf(stderr, "fuzz: round trip through the JSON twin differs: %s\n", where);
			abort();
		}
	}
	pm_report_free(&r);
	return 0;
}
