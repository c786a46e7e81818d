/*
 * cli_when.c — a point in time as --since and --until take it, in the forms
 * journalctl takes: @EPOCH, YYYY-MM-DD[ HH:MM[:SS]] (local time), now,
 * today, yesterday, tomorrow, and spans from now ("-30min", "-2h", "-1d",
 * "+1h", "-1h30min").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"

const char cli_when_forms[] =
	"@EPOCH, YYYY-MM-DD[ HH:MM[:SS]] (local time), now, today, yesterday, or a span from now such as "
	"-30min, -2h, -1d";

/* Digits at *p, exactly n of them (n 0: one or more, at most 18). */
static bool
digits(const char **p, size_t n, long long *out)
{
	size_t k = 0;
	long long v = 0;
	while (isdigit((unsigned char)(*p)[k]) && (n ? k < n : k < 18))
		v = v * 10 + ((*p)[k++] - '0');
	if (k == 0 || (n && k != n) || (!n && isdigit((unsigned char)(*p)[k])))
		return false;
	*p += k;
	*out = v;
	return true;
}

static const struct {
	const char *name;
	long long seconds;
} units[] = {
	{ "seconds", 1 }, { "second", 1 }, { "sec", 1 }, { "s", 1 },
	{ "minutes", 60 }, { "minute", 60 }, { "min", 60 }, { "m", 60 },
	{ "hours", 3600 }, { "hour", 3600 }, { "hr", 3600 }, { "h", 3600 },
	{ "days", 86400 }, { "day", 86400 }, { "d", 86400 },
	{ "weeks", 604800 }, { "week", 604800 }, { "w", 604800 },
};

/* "1h30min": seconds; false unless the whole text is such a span. */
static bool
span(const char *p, long long *out)
{
	long long total = 0;
	do {
		long long n;
		if (!digits(&p, 0, &n))
			return false;
		size_t u = 0;
		while (isalpha((unsigned char)p[u]))
			u++;
		long long mult = 0;
		for (size_t i = 0; i < sizeof units / sizeof units[0] && !mult; i++)
			if (strlen(units[i].name) == u && strncmp(p, units[i].name, u) == 0)
				mult = units[i].seconds;
		if (!mult || n > (1LL << 40) / mult)
			return false;
		total += n * mult;
		p += u;
	} while (*p);
	*out = total;
	return true;
}

/* Local midnight of today, plus `days`. */
static bool
midnight(time_t now, int days, int64_t *out)
{
	struct tm tm;
	if (!localtime_r(&now, &tm))
		return false;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	*out = (int64_t)t;
	return t != (time_t)-1;
}

/* YYYY-MM-DD[ HH:MM[:SS]], local time; false unless every field is in range. */
static bool
date(const char *p, int64_t *out)
{
	long long y, mo, d, h = 0, mi = 0, s = 0;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' || !digits(&p, 2, &d))
		return false;
	if (*p == ' ' || *p == 'T') {
		p++;
		if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
			return false;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, &s))
				return false;
		}
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59)
		return false;
	struct tm tm = { .tm_year = (int)y - 1900, .tm_mon = (int)mo - 1, .tm_mday = (int)d, .tm_hour = (int)h,
		         .tm_min = (int)mi, .tm_sec = (int)s, .tm_isdst = -1 };
	time_t t = mktime(&tm);
	/* mktime moves 2024-02-30 to March: a day the month does not have is not a date. */
	if (t == (time_t)-1 || tm.tm_mday != (int)d || tm.tm_mon != (int)mo - 1)
		return false;
	*out = (int64_t)t;
	return true;
}

bool
cli_parse_when(const char *text, time_t now, int64_t *out)
{
	long long v;
	const char *p = text;
	if (!text || !*text)
		return false;
	if (*p == '@') {
		p++;
		return digits(&p, 0, &v) && !*p && (*out = v, true);
	}
	if (strcmp(text, "now") == 0)
		return *out = (int64_t)now, true;
	if (strcmp(text, "today") == 0)
		return midnight(now, 0, out);
	if (strcmp(text, "yesterday") == 0)
		return midnight(now, -1, out);
	if (strcmp(text, "tomorrow") == 0)
		return midnight(now, 1, out);
	if (*p == '-' || *p == '+') {
		if (!span(p + 1, &v))
			return false;
		*out = (int64_t)now + (*p == '-' ? -v : v);
		return true;
	}
	return date(text, out);
}
