/*
 * fuzz_report.h — what is checked on every report a reader accepted, by the
 * fuzzers and by the unit test that replays fuzz/regressions/:
 *   - both renderings stay inside the model (ASan sees a stray pointer);
 *   - the JSON twin carries the model whole: model → JSON → model is equal.
 */
#ifndef PM_FUZZ_REPORT_H
#define PM_FUZZ_REPORT_H

#include <stdlib.h>

#include "postmortem.h"

/* Larger than any twin a fuzzer input (at most a few hundred KB) can describe. */
enum { FUZZ_OUT_CAP = 64 << 20 };

/* false with *where set (and the reason) when the round trip through the JSON twin loses something. */
static inline bool
fuzz_json_round_trip(const pm_report *a, const char **where)
{
	static char *buf;
	if (!buf && !(buf = malloc(FUZZ_OUT_CAP))) {
		*where = "no memory for the output buffer";
		return false;
	}
	pm_out o;
	pm_out_init_buf(&o, buf, FUZZ_OUT_CAP);
	if (pm_write_json(a, &o) != PM_OK) {
		*where = "pm_write_json failed";
		return false;
	}
	pm_report b;
	pm_read_error err;
	pm_report_init(&b);
	bool same = false;
	if (pm_read_json(buf, o.len, &b, &err) != PM_OK)
		*where = "the written twin does not read";
	else
		same = pm_report_equal(a, &b, where);
	pm_report_free(&b);
	return same;
}

static inline void
fuzz_render_text(const pm_report *r)
{
	static char buf[1 << 16];
	pm_out o;
	pm_out_init_buf(&o, buf, sizeof buf);
	pm_write_text(r, &o);
}

#endif
