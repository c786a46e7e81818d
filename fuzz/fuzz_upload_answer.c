/*
 * fuzz_upload_answer.c — libFuzzer target for what the upload reads from a
 * server's answer: the Retry-After header (seconds or an HTTP date).
 *
 * Properties: the wait is "unreadable" (-1) or within [0, the cap]; and a
 * value of plain digits, however long, is exactly that many seconds, capped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delivery/upload.h"

enum { MAX_VALUE = 4096 };

static void
fail(const char *what, const char *value)
{
	fprintf(stderr, "fuzz_upload_answer: %s: \"%s\"\n", what, value);
	abort();
}

/* The wait a value of digits (with blanks around) asks for, or -2 when it is not one. */
static int64_t
digits_wait(const char *v)
{
	const int64_t cap = UPLOAD_RETRY_AFTER_MAX_MS;
	size_t i = strspn(v, " \t"), d = strspn(v + i, "0123456789");
	if (d == 0 || v[i + d + strspn(v + i + d, " \t")] != '\0')
		return -2;
	int64_t sec = 0;
	for (size_t k = i; k < i + d && sec <= cap / 1000; k++)
		sec = sec * 10 + (v[k] - '0');
	return sec >= cap / 1000 ? cap : sec * 1000;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size > MAX_VALUE)
		return 0;
	char value[MAX_VALUE + 1];
	memcpy(value, data, size);
	value[size] = '\0';
	/* A fixed "now" keeps every run of an input the same. */
	int64_t wait = upload_retry_after_ms(value, 1700000000);
	if (wait < -1 || wait > (int64_t)UPLOAD_RETRY_AFTER_MAX_MS)
		fail("wait out of range", value);
	int64_t want = digits_wait(value);
	if (want != -2 && wait != want)
		fail("seconds read wrong", value);
	return 0;
}
