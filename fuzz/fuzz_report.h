/*
 * fuzz_report.h — what the reader fuzzers do with a report they read: render
 * it, so a model that points outside itself shows up under ASan.
 */
#ifndef PM_FUZZ_REPORT_H
#define PM_FUZZ_REPORT_H

#include "postmortem.h"

static inline void
fuzz_render(const pm_report *r)
{
	static char buf[1 << 16];
	pm_out o;
	pm_out_init_buf(&o, buf, sizeof buf);
	pm_write_text(r, &o);
	pm_out_init_buf(&o, buf, sizeof buf);
	pm_write_json(r, &o);
}

#endif
