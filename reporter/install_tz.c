/*
 * install_tz.c — the local time's offset from UTC, for the report's dates.
 * NOT AS-safe.
 *
 * glibc's first localtime_r parses the whole zone file and costs a fresh
 * process a few hundred microseconds at install.  Most machines that run
 * services keep a zone with one fixed offset (UTC): for those, the offset is
 * read straight from the TZif file (RFC 8536).  Anything else — a TZ other
 * than ":/path", a zone with transitions or daylight-saving rules, a file we cannot read —
 * goes to localtime_r as before.
 */
#include "install.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "as_util.h"

enum { TZIF_HEADER = 44 };

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The data block's size from its header: v1 times are 4 bytes, v2+ 8. */
static size_t
block_size(const unsigned char *h, size_t time_bytes)
{
	uint32_t isut = be32(h + 20), isstd = be32(h + 24), leap = be32(h + 28);
	uint32_t times = be32(h + 32), types = be32(h + 36), chars = be32(h + 40);
	return (size_t)times * (time_bytes + 1) + (size_t)types * 6 + chars + (size_t)leap * (time_bytes + 4) +
	       isstd + isut;
}

/* Whether a POSIX TZ string ("UTC0", "<+03>-3", "EST5EDT,M3.2.0,M11.1.0")
 * names a daylight-saving time: a second name after the offset, or rules. */
static bool
footer_has_dst(const unsigned char *p, size_t n)
{
	bool offset = false, quoted = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c == '<' && offset)
			return true;
		if (c == '<' || c == '>')
			quoted = c == '<';
		else if (!quoted && c >= '0' && c <= '9')
			offset = true;
		else if (!quoted && (c == ',' || (offset && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))))
			return true;
	}
	return false;
}

/* A fixed-offset zone: no transitions, one local time type, and (v2+) a
 * footer rule without daylight saving. */
static bool
fixed_offset(const unsigned char *z, size_t n, int32_t *utoff)
{
	if (n < TZIF_HEADER || memcmp(z, "TZif", 4) != 0)
		return false;
	const unsigned char *h = z;
	size_t at = TZIF_HEADER + block_size(h, 4);
	if (z[4] >= '2') {
		if (at > n - TZIF_HEADER || memcmp(z + at, "TZif", 4) != 0)
			return false;
		h = z + at;
		at += TZIF_HEADER + block_size(h, 8);
		/* as_read_small_file dropped the footer's closing newline. */
		if (at >= n || z[at] != '\n' || footer_has_dst(z + at + 1, n - at - 1))
			return false;
	}
	if (at > n || be32(h + 32) != 0 || be32(h + 36) != 1)
		return false;
	*utoff = (int32_t)be32(h + TZIF_HEADER);
	return true;
}

int16_t
pmi_tz_offset_minutes(void)
{
	unsigned char zone[4096];
	int32_t utoff;
	/* Unset TZ means /etc/localtime; ":/path" names the file (as glibc reads them). */
	const char *tz = getenv("TZ");
	const char *path = !tz ? "/etc/localtime" : strncmp(tz, ":/", 2) == 0 ? tz + 1 : NULL;
	long n = path ? as_read_small_file(path, (char *)zone, sizeof zone) : -1;
	if (n > 0 && (size_t)n < sizeof zone - 2 && fixed_offset(zone, (size_t)n, &utoff))
		return (int16_t)(utoff / 60);
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm))
		return 0;
	return (int16_t)(tm.tm_gmtoff / 60);
}
