/*
 * fuzz_read_json.c — libFuzzer target for the JSON twin reader.
 *
 * Property: whatever pm_read_json accepts, pm_write_json writes back without
 * loss — reading that output gives a pm_report_equal report.
 */
#include <stdio.h>
#include <stdlib.h>

#include "postmortem.h"

/* Larger than any twin a fuzzer input (at most a few hundred KB) can describe. */
enum { OUT_CAP = 64 << 20 };

static char *out_buf;

static void
fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_read_json: %s: %s\n", what, detail);
	abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	pm_report a, b;
	pm_read_error err;
	pm_report_init(&a);
	if (pm_read_json((const char *)data, size, &a, &err) != PM_OK) {
		pm_report_free(&a);
		return 0;
	}
	if (!out_buf && !(out_buf = malloc(OUT_CAP)))
		fail("malloc", "no memory for the output buffer");
	pm_out o;
	pm_out_init_buf(&o, out_buf, OUT_CAP);
	pm_err e = pm_write_json(&a, &o);
	if (e != PM_OK)
		fail("pm_write_json", pm_strerror(e));
	pm_report_init(&b);
	if (pm_read_json(out_buf, o.len, &b, &err) != PM_OK)
		fail("reading the written twin", err.message);
	const char *where = "";
	if (!pm_report_equal(&a, &b, &where))
		fail("round trip differs", where);
	pm_report_free(&a);
	pm_report_free(&b);
	return 0;
}
