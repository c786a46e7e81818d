/*
 * write.h — the two AS-SAFE writers over an output sink: what the crash
 * path, the store and upload call.  Tools call pm_write_report_* instead.
 */
#ifndef PM_FORMATS_WRITE_H
#define PM_FORMATS_WRITE_H

#include "out.h"

/* Apple-style .crash text of a report.  AS-safe with an fd or buffer sink. */
pm_err pmi_write_text(const pm_report *r, pm_out *o);
/* The JSON twin of a report (docs/json-schema.md).  AS-safe with an fd or buffer sink. */
pm_err pmi_write_json(const pm_report *r, pm_out *o);

#endif
