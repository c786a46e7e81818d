/*
 * write_json.h — the AS-SAFE writer of the JSON twin (write_json.c).
 */
#ifndef PM_FORMATS_WRITE_JSON_H
#define PM_FORMATS_WRITE_JSON_H

#include "model.h"

/* The JSON twin of a report (docs/json-schema.md).  AS-safe with an fd or buffer sink;
 * the crash path, the store and upload call it, tools call pm_write_report_* instead. */
pm_err pmi_write_json(const pm_report *r, pm_out *o);

#endif
