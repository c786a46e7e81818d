/*
 * model.h — report model helpers the library uses inside but no caller
 * needs: a report over a fixed block (the crash path's), and the comparison
 * the round-trip tests and fuzzers check readers against.
 */
#ifndef PM_FORMATS_MODEL_H
#define PM_FORMATS_MODEL_H

#include "postmortem-tools.h"

/* Empty report whose arena is the caller's fixed block.  AS-safe. */
void pm_report_init_fixed(pm_report *r, void *mem, size_t size);
/* True when two reports hold the same facts; on difference *where names the first. */
bool pm_report_equal(const pm_report *a, const pm_report *b, const char **where);

#endif
