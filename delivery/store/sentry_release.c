/*
 * sentry_release.c — the release a report's event and its run's session are
 * filed under (docs/sentry.md, "Release and environment"): one spelling for
 * both, so that Sentry ties the crash to its release's health.
 */
#include <stdio.h>
#include <string.h>

#include "sessions.h"

static bool
known(const char *s)
{
	return s && *s && strcmp(s, "???") != 0;
}

bool
pmi_sentry_release(const char *app_id, const char *version, char *out, size_t cap)
{
	if (!known(app_id) || !known(version))
		return false;
	/* "1.4 (212)" → "app@1.4+212", Apple's version and build as Sentry spells a release. */
	const char *open = strstr(version, " (");
	size_t close = strlen(version);
	int n;
	if (open && close > 0 && version[close - 1] == ')')
		n = snprintf(out, cap, "%s@%.*s+%.*s", app_id, (int)(open - version), version,
		             (int)(version + close - 1 - open - 2), open + 2);
	else
		n = snprintf(out, cap, "%s@%s", app_id, version);
	return n > 0 && (size_t)n < cap;
}
