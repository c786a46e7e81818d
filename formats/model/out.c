/*
 * out.c — AS-SAFE byte sink and number formatting for the writers.
 *
 * Runs in the crash handler: only write(2) and memcpy/strlen (both on the
 * POSIX async-signal-safe list since POSIX.1-2016) are called.
 */
#include "out.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void
pmi_out_init_fd(pm_out *o, int fd, char *buf, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->buf = buf;
	o->cap = cap;
	o->fd = fd;
}

void
pmi_out_init_buf(pm_out *o, char *buf, size_t cap)
{
	memset(o, 0, sizeof *o);
	o->buf = buf;
	o->cap = cap;
	o->fd = -1;
	if (cap > 0)
		buf[0] = '\0';
}

static bool
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

bool
pmi_out_flush(pm_out *o)
{
	if (!pmi_out_drains(o) || o->len == 0)
		return !o->failed;
	bool ok = o->fd >= 0 ? write_all(o->fd, o->buf, o->len)
	                     : o->sink(o->sink_ctx, o->buf, o->len);
	if (!ok)
		o->failed = true;
	o->len = 0;
	return ok;
}

void
pmi_out_put_slow(pm_out *o, const char *p, size_t n)
{
	o->total += n;
	while (n > 0) {
		size_t room = o->cap - o->len;
		if (room == 0) {
			if (!pmi_out_drains(o)) {
				o->overflow = true;
				return;
			}
			pmi_out_flush(o);
			continue;
		}
		/* Buffer-only sinks keep one byte for the terminating NUL. */
		if (!pmi_out_drains(o) && room == 1) {
			o->overflow = true;
			return;
		}
		size_t k = n < room ? n : room;
		if (!pmi_out_drains(o) && k == room)
			k = room - 1;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
		if (!pmi_out_drains(o))
			o->buf[o->len] = '\0';
	}
}

void
pmi_out_rep(pm_out *o, char c, size_t n)
{
	if (pmi_out_drains(o) && n <= o->cap - o->len) {
		memset(o->buf + o->len, c, n);
		o->len += n;
		o->total += n;
		return;
	}
	char run[64];
	memset(run, c, n < sizeof run ? n : sizeof run);
	while (n > 0) {
		size_t k = n < sizeof run ? n : sizeof run;
		pmi_out_put(o, run, k);
		n -= k;
	}
}

void
pmi_out_lpad(pm_out *o, const char *s, size_t width)
{
	size_t n = s ? strlen(s) : 0;
	pmi_out_put(o, s ? s : "", n);
	if (n < width)
		pmi_out_rep(o, ' ', width - n);
}

void
pmi_out_rpad(pm_out *o, const char *s, size_t width)
{
	size_t n = s ? strlen(s) : 0;
	if (n < width)
		pmi_out_rep(o, ' ', width - n);
	pmi_out_put(o, s ? s : "", n);
}

/* Two decimal digits per division: half the divisions of one at a time. */
static const char digit_pairs[] =
	"0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
	"5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* Two digits of v (below 100) at p. */
static void
put_pair(char *p, uint32_t v)
{
	memcpy(p, digit_pairs + 2 * v, 2);
}

/* The 8 digits of v (below 10^8, zero-padded) at p: four pairs that do not
 * wait on each other, where a division a pair made a chain. */
static void
put_eight(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;
	put_pair(p, hi / 100);
	put_pair(p + 2, hi % 100);
	put_pair(p + 4, lo / 100);
	put_pair(p + 6, lo % 100);
}

/* v's decimal digits, written backwards so that they end at `end`; returns
 * the first.  Eight digits a step while more than eight remain, then pairs. */
static char *
u64_digits(char *end, uint64_t v)
{
	while (v >= 100000000) {
		uint64_t q = v / 100000000;
		end -= 8;
		put_eight(end, (uint32_t)(v - q * 100000000));
		v = q;
	}
	uint32_t w = (uint32_t)v;
	while (w >= 100) {
		end -= 2;
		put_pair(end, w % 100);
		w /= 100;
	}
	if (w >= 10) {
		end -= 2;
		put_pair(end, w);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
}

/* How many hex digits v has (0 has one). */
static size_t
nibbles(uint64_t v)
{
	return v ? (size_t)(64 - __builtin_clzll(v) + 3) / 4 : 1;
}

/* The 8 hex digits of v as 8 bytes, the most significant first in memory:
 * each nibble spread to a byte, then turned to its digit in all 8 at once
 * (a byte of 10 or more gets the distance from '9' + 1 to 'a', or 'A'). */
static uint64_t
hex_eight(uint32_t v, bool upper)
{
	const uint64_t ones = 0x0101010101010101u;
	uint64_t x = v;
	x = (x | x << 16) & 0x0000ffff0000ffffu;
	x = (x | x << 8) & 0x00ff00ff00ff00ffu;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fu;
	uint64_t letters = ((x + ones * 6) >> 4) & ones;
	x += ones * '0' + letters * (upper ? 'A' - '9' - 1 : 'a' - '9' - 1);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

/* v's hex digits, zero-padded to `digits` (at most PMI_HEX_MAX), ending at `end`; returns the first. */
static char *
hex_digits(char *end, uint64_t v, unsigned digits, bool upper)
{
	char all[16];
	uint64_t hi = hex_eight((uint32_t)(v >> 32), upper), lo = hex_eight((uint32_t)v, upper);
	memcpy(all, &hi, 8);
	memcpy(all + 8, &lo, 8);
	/* all's leading digits are zeros: its last max(n, width) are the
	 * padded number, and a full address is all 16 of them. */
	size_t n = nibbles(v), width = digits < PMI_HEX_MAX ? digits : PMI_HEX_MAX;
	char *p = end - 16;
	if (n < 16 && width < 16) {
		n = n > width ? n : width;
		p = end - n;
		memcpy(p, all + 16 - n, n);
	} else {
		memcpy(p, all, 16);
	}
	while ((size_t)(end - p) < width)
		*--p = '0';
	return p;
}

static size_t
put_digits(char *buf, size_t cap, const char *digits, size_t n)
{
	if (n + 1 > cap)
		return 0;
	memcpy(buf, digits, n);
	buf[n] = '\0';
	return n;
}

size_t
pmi_fmt_u64(char *buf, size_t cap, uint64_t v)
{
	char tmp[20];
	const char *p = u64_digits(tmp + sizeof tmp, v);
	return put_digits(buf, cap, p, (size_t)(tmp + sizeof tmp - p));
}

size_t
pmi_fmt_i64(char *buf, size_t cap, int64_t v)
{
	if (v >= 0)
		return pmi_fmt_u64(buf, cap, (uint64_t)v);
	if (cap < 2)
		return 0;
	buf[0] = '-';
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	size_t n = pmi_fmt_u64(buf + 1, cap - 1, (uint64_t)0 - (uint64_t)v);
	return n ? n + 1 : 0;
}

size_t
pmi_fmt_hex(char *buf, size_t cap, uint64_t v, unsigned digits, bool upper)
{
	char tmp[PMI_HEX_MAX];
	const char *p = hex_digits(tmp + sizeof tmp, v, digits, upper);
	return put_digits(buf, cap, p, (size_t)(tmp + sizeof tmp - p));
}

/* How many decimal digits v has: from its bit length (log10(2) is about
 * 1233 / 4096), less one when v is below that power of ten. */
static size_t
dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
		10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
		10000000000000000000u,
	};
	if (v < 10)
		return 1;
	size_t t = (size_t)(64 - __builtin_clzll(v)) * 1233 >> 12;
	return t + 1 - (v < pow10[t]);
}

/* How many hex digits pmi_out_hex writes for v padded to `digits`. */
static size_t
hex_len(uint64_t v, unsigned digits)
{
	size_t n = nibbles(v), pad = digits < PMI_HEX_MAX ? digits : PMI_HEX_MAX;
	return n > pad ? n : pad;
}

/* Where to render n bytes: straight in the buffer when they fit, else tmp;
 * then take() appends them from wherever they are. */
static char *
room_or(pm_out *o, size_t n, char *tmp)
{
	char *p = pmi_out_room(o, n);
	return p ? p : tmp;
}

static void
take(pm_out *o, char *at, size_t n, const char *tmp)
{
	if (at == tmp)
		pmi_out_put(o, tmp, n);
	else
		pmi_out_wrote(o, at + n);
}

char *
pmi_put_u64(char *at, uint64_t v)
{
	size_t n = dec_len(v);
	u64_digits(at + n, v);
	return at + n;
}

char *
pmi_put_hex(char *at, uint64_t v, unsigned digits)
{
	size_t n = hex_len(v, digits);
	hex_digits(at + n, v, digits, false);
	return at + n;
}

void
pmi_out_u64(pm_out *o, uint64_t v)
{
	char tmp[PMI_U64_MAX];
	char *at = room_or(o, PMI_U64_MAX, tmp);
	take(o, at, (size_t)(pmi_put_u64(at, v) - at), tmp);
}

void
pmi_out_i64(pm_out *o, int64_t v)
{
	if (v < 0)
		pmi_out_ch(o, '-');
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	pmi_out_u64(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void
pmi_out_hex(pm_out *o, uint64_t v, unsigned digits)
{
	char tmp[PMI_HEX_MAX];
	char *at = room_or(o, PMI_HEX_MAX, tmp);
	take(o, at, (size_t)(pmi_put_hex(at, v, digits) - at), tmp);
}

void
pmi_out_0x(pm_out *o, uint64_t v, unsigned digits)
{
	pmi_out_put(o, "0x", 2);
	pmi_out_hex(o, v, digits);
}

/* Howard Hinnant's days_from_civil inverse: exact for the whole int64 range we use. */
void
pmi_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	uint64_t doe = (uint64_t)(z - era * 146097);
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t yy = (int64_t)yoe + era * 400;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	uint64_t mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yy + (*m <= 2);
}

static void
put2(pm_out *o, unsigned v)
{
	char b[2] = { (char)('0' + v / 10 % 10), (char)('0' + v % 10) };
	pmi_out_put(o, b, 2);
}

void
pmi_out_time(pm_out *o, const pm_time *t)
{
	int64_t local = t->sec + (int64_t)t->tz_min * 60;
	int64_t days = local / 86400, rem = local % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	int64_t y;
	unsigned m, d;
	pmi_civil_from_days(days, &y, &m, &d);
	char yb[24];
	size_t yn = pmi_fmt_i64(yb, sizeof yb, y);
	if (y >= 0 && yn < 4)
		pmi_out_rep(o, '0', 4 - yn);
	pmi_out_put(o, yb, yn);
	pmi_out_ch(o, '-');
	put2(o, m);
	pmi_out_ch(o, '-');
	put2(o, d);
	pmi_out_ch(o, ' ');
	put2(o, (unsigned)(rem / 3600));
	pmi_out_ch(o, ':');
	put2(o, (unsigned)(rem / 60 % 60));
	pmi_out_ch(o, ':');
	put2(o, (unsigned)(rem % 60));
	if (t->digits > 0) {
		char fb[8];
		uint32_t us = t->usec % 1000000;
		for (int i = 5; i >= 0; i--) {
			fb[i] = (char)('0' + us % 10);
			us /= 10;
		}
		pmi_out_ch(o, '.');
		pmi_out_put(o, fb, t->digits > 6 ? 6 : t->digits);
	}
	int tz = t->tz_min;
	pmi_out_ch(o, ' ');
	pmi_out_ch(o, tz < 0 ? '-' : '+');
	if (tz < 0)
		tz = -tz;
	put2(o, (unsigned)(tz / 60));
	put2(o, (unsigned)(tz % 60));
}
