/*
 * sentry_rate_limits.c — what a Sentry server's X-Sentry-Rate-Limits header
 * asks of us (sentry.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sentry.h"
#include "upload.h"

/* Does a ";"-separated category list name events?  Empty means every category. */
static bool
limits_events(const char *cats, size_t n)
{
	if (n == 0)
		return true;
	for (size_t i = 0; i < n;) {
		size_t k = i;
		while (k < n && cats[k] != ';')
			k++;
		if ((k - i == 5 && memcmp(cats + i, "error", 5) == 0) || (k - i == 7 && memcmp(cats + i, "default", 7) == 0))
			return true;
		i = k + 1;
	}
	return false;
}

int64_t
pmi_sentry_rate_limit_ms(const char *value)
{
	int64_t longest = -1;
	/* "retry_after:categories:scope[:reason[:namespaces]], ..." */
	for (const char *p = value; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *stop;
		while (n > 0 && *p == ' ')
			p++, n--;
		double secs = strtod(p, &stop);
		const char *cats = stop < p + n && *stop == ':' ? stop + 1 : NULL;
		if (cats && stop > p && secs >= 0) {
			size_t cn = strcspn(cats, ":,");
			if (limits_events(cats, cn)) {
				double ms = secs * 1000.0 > UPLOAD_RETRY_AFTER_MAX_MS ? UPLOAD_RETRY_AFTER_MAX_MS : secs * 1000.0;
				if ((int64_t)ms > longest)
					longest = (int64_t)ms;
			}
		}
		p = end ? end + 1 : p + n;
	}
	return longest;
}
