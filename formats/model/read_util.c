/*
 * read_util.c — input checks and error messages shared by the readers.
 */
#include "read_util.h"

#include <stdarg.h>
#include <stdio.h>

pm_err
pmi_read_fail(pm_read_error *err, uint32_t line, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->line = line;
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return PM_E_FORMAT;
}

pm_err
pmi_read_check_input(const char *data, size_t len, const pm_report *r, pm_read_error *err)
{
	if (!r || (!data && len)) {
		pmi_read_fail(err, 0, "no input");
		return PM_E_INVAL;
	}
	if (len > PM_READ_MAX_BYTES) {
		pmi_read_fail(err, 0, "input is larger than the %u-byte limit", PM_READ_MAX_BYTES);
		return PM_E_LIMIT;
	}
	return PM_OK;
}
