/*
 * upload_log.c — the uploader's log lines on stderr.
 *
 * One formatted line per call, written with a single fputs so lines from the
 * background thread do not interleave with the application's own output
 * mid-line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "upload.h"

void
pmi_upload_log(const char *fmt, ...)
{
	char line[1024];
	int n = snprintf(line, sizeof line, "postmortem: upload: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	line[len] = '\n';
	line[len + 1] = '\0';
	fputs(line, stderr);
}
