/*
 * store_log.c — the store's one-line messages on stderr (what was salvaged,
 * quarantined or dropped by the caps; never report contents).
 */
#include "store.h"

#include <stdarg.h>
#include <stdio.h>

void
pmi_store_log(const char *fmt, ...)
{
	char line[PM_REASON_MAX + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "postmortem: %s\n", line);
}
