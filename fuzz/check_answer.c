/*
 * check_answer.c — what must hold when the upload reads a server's answer:
 * Retry-After and Sentry's X-Sentry-Rate-Limits (checks.h).
 */
#include "fuzz/checks.h"

#include <string.h>

#include "delivery/upload/sentry.h"
#include "delivery/upload/upload.h"

/* The wait plain digits (with blanks around) ask for, or -2 when the value is not that. */
static int64_t
digits_wait(const char *v)
{
	const int64_t max = UPLOAD_RETRY_AFTER_MAX_MS;
	size_t i = strspn(v, " \t"), d = strspn(v + i, "0123456789");
	if (d == 0 || v[i + d + strspn(v + i + d, " \t")] != '\0')
		return -2;
	int64_t sec = 0;
	for (size_t k = i; k < i + d && sec <= max / 1000; k++)
		sec = sec * 10 + (v[k] - '0');
	return sec >= max / 1000 ? max : sec * 1000;
}

bool
fuzz_check_answer(const uint8_t *data, size_t size, char *why, size_t cap)
{
	char value[4096];
	if (size >= sizeof value)
		return true;
	memcpy(value, data, size);
	value[size] = '\0';
	/* A fixed "now" keeps every run of an input the same. */
	int64_t wait = pmi_upload_retry_after_ms(value, 1700000000);
	if (wait < -1 || wait > (int64_t)UPLOAD_RETRY_AFTER_MAX_MS)
		return fuzz_say(why, cap, "Retry-After \"%s\": wait %lld out of range", value, (long long)wait);
	int64_t want = digits_wait(value);
	if (want != -2 && wait != want)
		return fuzz_say(why, cap, "Retry-After \"%s\": %lld ms, not %lld", value, (long long)wait,
		           (long long)want);
	for (int c = PMI_SENTRY_EVENTS; c <= PMI_SENTRY_SESSIONS; c++) {
		int64_t limit = pmi_sentry_rate_limit_ms(value, (pmi_sentry_category)c);
		if (limit < -1 || limit > (int64_t)UPLOAD_RETRY_AFTER_MAX_MS)
			return fuzz_say(why, cap, "X-Sentry-Rate-Limits \"%s\": %lld ms out of range", value, (long long)limit);
	}
	return true;
}
