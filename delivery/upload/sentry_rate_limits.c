/*
 * sentry_rate_limits.c — what a Sentry server's X-Sentry-Rate-Limits header
 * asks of us (sentry.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sentry.h"
#include "upload.h"

static bool
is(const char *cat, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(cat, name, n) == 0;
}

/* Does a ";"-separated category list name data of category c?  Empty means every category. */
static bool
limits(const char *cats, size_t n, pmi_sentry_category c)
{
	if (n == 0)
		return true;
	for (size_t i = 0; i < n;) {
		size_t k = i;
		while (k < n && cats[k] != ';')
			k++;
		if (c == PMI_SENTRY_EVENTS ? is(cats + i, k - i, "error") || is(cats + i, k - i, "default")
		                           : is(cats + i, k - i, "session"))
			return true;
		i = k + 1;
	}
	return false;
}

int64_t
pmi_sentry_rate_limit_ms(const char *value, pmi_sentry_category c)
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
			if (limits(cats, cn, c)) {
				double ms = secs * 1000.0 > UPLOAD_RETRY_AFTER_MAX_MS ? UPLOAD_RETRY_AFTER_MAX_MS : secs * 1000.0;
				if ((int64_t)ms > longest)
					longest = (int64_t)ms;
			}
		}
		p = end ? end + 1 : p + n;
	}
	return longest;
}
