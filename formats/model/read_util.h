/*
 * read_util.h — what every reader shares: input checks and error messages.
 */
#ifndef PM_FORMATS_READ_UTIL_H
#define PM_FORMATS_READ_UTIL_H

#include "postmortem-tools.h"

/* The checks every reader entry point makes: a report to fill, input that
 * exists, within PM_READ_MAX_BYTES.  PM_OK, or the error with err set. */
pm_err pmi_read_check_input(const char *data, size_t len, const pm_report *r, pm_read_error *err);

/* Set err (line may be 0) with a printf-style message; returns PM_E_FORMAT. */
pm_err pmi_read_fail(pm_read_error *err, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
