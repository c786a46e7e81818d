/*
 * sentry_time.c — a time as Sentry's payloads want it: RFC 3339 in UTC with
 * microseconds (events, breadcrumbs, sessions).
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "sentry.h"

bool
pmi_sentry_time(int64_t us, char out[PMI_SENTRY_TIME_MAX])
{
	struct tm tm;
	time_t sec = (time_t)(us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000));
	if (!gmtime_r(&sec, &tm))
		return false;
	size_t n = strftime(out, PMI_SENTRY_TIME_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	return n > 0 && snprintf(out + n, PMI_SENTRY_TIME_MAX - n, ".%06" PRId64 "Z", us - (int64_t)sec * 1000000) > 0;
}
