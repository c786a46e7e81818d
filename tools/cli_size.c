/*
 * cli_size.c — byte counts as people read them, for progress lines and summaries.
 */
#include <inttypes.h>
#include <stdio.h>

#include "commands.h"

void
cli_format_size(uint64_t n, char *out, size_t cap)
{
	if (n < 1024)
		snprintf(out, cap, "%" PRIu64 " B", n);
	else if (n < 1024 * 1024)
		snprintf(out, cap, "%.1f KiB", (double)n / 1024);
	else
		snprintf(out, cap, "%.1f MiB", (double)n / (1024 * 1024));
}
