/*
 * out.h — AS-SAFE output helpers shared by the writers.
 *
 * Everything here runs in the crash handler: no locks, no heap, no stdio, no
 * locale.  Numbers are formatted by hand; padding is explicit.
 */
#ifndef PM_FORMATS_OUT_H
#define PM_FORMATS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "postmortem-tools.h"

/*
 * An output sink: bytes collect in `buf` and go to `fd` (write(2)) or to a
 * callback when it fills.  With neither, output past `cap` is dropped and
 * `overflow` is set.  Private: tools write through pm_write_report_*.
 */
typedef struct pm_out pm_out;

struct pm_out {
	char *buf;
	size_t cap, len;
	int fd;                 /* -1 when none */
	pm_write_fn *sink;      /* used when fd < 0 */
	void *sink_ctx;
	uint64_t total;         /* bytes accepted so far */
	bool overflow;          /* bytes were dropped */
	bool failed;            /* a write failed */
};

/* Sink to a file descriptor through a caller buffer. */
void pmi_out_init_fd(pm_out *o, int fd, char *buf, size_t cap);
/* Sink into buf only (NUL-terminated while room remains). */
void pmi_out_init_buf(pm_out *o, char *buf, size_t cap);
/* Push buffered bytes to the fd or callback. */
bool pmi_out_flush(pm_out *o);

/* The writers append a few bytes at a time, hundreds of thousands of times in
 * a report of 257 threads: the common case (it fits, and the buffer drains
 * elsewhere) is inline, the rest is pmi_out_put_slow. */
void pmi_out_put_slow(pm_out *o, const char *p, size_t n);

/* Whether full buffers go somewhere (else output past cap is dropped). */
static inline bool
pmi_out_drains(const pm_out *o)
{
	return o->fd >= 0 || o->sink != NULL;
}

/* Append n bytes. */
static inline void
pmi_out_put(pm_out *o, const char *p, size_t n)
{
	if (pmi_out_drains(o) && n <= o->cap - o->len) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		o->total += n;
		return;
	}
	pmi_out_put_slow(o, p, n);
}

/* Append one byte. */
static inline void
pmi_out_ch(pm_out *o, char c)
{
	if (pmi_out_drains(o) && o->len < o->cap) {
		o->buf[o->len++] = c;
		o->total++;
		return;
	}
	pmi_out_put_slow(o, &c, 1);
}

/*
 * Room for n more bytes straight in the buffer, or NULL when they do not
 * fit now (then append through pmi_out_put); after writing there, pass the
 * end of what was written to pmi_out_wrote.  The writers' most frequent
 * pieces (JSON separators, keys and short strings, numbers) go this way:
 * no call per byte, no memcpy call for a few bytes.
 */
static inline char *
pmi_out_room(pm_out *o, size_t n)
{
	return pmi_out_drains(o) && n <= o->cap - o->len ? o->buf + o->len : NULL;
}

static inline void
pmi_out_wrote(pm_out *o, const char *end)
{
	size_t n = (size_t)(end - (o->buf + o->len));
	o->len += n;
	o->total += n;
}

/* Append a NUL-terminated string (NULL appends nothing).  Inline, so that
 * a literal's length is known where it is written. */
static inline void
pmi_out_str(pm_out *o, const char *s)
{
	if (s)
		pmi_out_put(o, s, strlen(s));
}

/*
 * Lengths of strings met before, by address: a report's frames name the
 * same few symbols and images thousands of times, and a writer measures
 * each once.  A few entries; a string that loses its entry is measured again.
 */
enum { PMI_LENS_SLOTS = 8 };

typedef struct pmi_lens {
	const char *s[PMI_LENS_SLOTS];
	size_t n[PMI_LENS_SLOTS];
} pmi_lens;

/* s's entry.  Arena strings are not aligned: the address's low bits all count. */
static inline size_t
pmi_lens_slot(const char *s)
{
	uintptr_t a = (uintptr_t)s;
	return (size_t)((a ^ a >> 3 ^ a >> 6) % PMI_LENS_SLOTS);
}

/* strlen(s), measured once while s keeps its entry. */
static inline size_t
pmi_lens_get(pmi_lens *c, const char *s)
{
	size_t k = pmi_lens_slot(s);
	if (c->s[k] != s) {
		c->s[k] = s;
		c->n[k] = strlen(s);
	}
	return c->n[k];
}

/*
 * Whether a byte of x is below 0x20, or is a or b (a zero byte in x xor
 * that byte repeated).  Each test is exact about whether such a byte
 * exists, which is all that is asked: eight bytes a step.
 */
static inline bool
pmi_word_has(uint64_t x, unsigned char a, unsigned char b)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t xa = x ^ (ones * a), xb = x ^ (ones * b);
	return (((x - ones * 0x20) & ~x) | ((xa - ones) & ~xa) | ((xb - ones) & ~xb)) & highs;
}

/* Whether s[0..n) has no byte below 0x20 and none equal to a or b: a string
 * a writer may copy as it is (the JSON writer's '"' and '\\', the text
 * writer's DEL and '\\').  Never reads outside it: the last word overlaps
 * the one before, and a string shorter than a word is padded. */
static inline bool
pmi_out_plain(const char *s, size_t n, unsigned char a, unsigned char b)
{
	uint64_t x;
	if (n < sizeof x) {
		x = 0x6161616161616161u; /* "aaaaaaaa" */
		memcpy(&x, s, n);
		return !pmi_word_has(x, a, b);
	}
	for (size_t i = 0; i + sizeof x < n; i += sizeof x) {
		memcpy(&x, s + i, sizeof x);
		if (pmi_word_has(x, a, b))
			return false;
	}
	memcpy(&x, s + n - sizeof x, sizeof x);
	return !pmi_word_has(x, a, b);
}

/* Append c n times. */
void pmi_out_rep(pm_out *o, char c, size_t n);
/* Append s left-justified in a field of `width` (never truncated). */
void pmi_out_lpad(pm_out *o, const char *s, size_t width);
/* Append s right-justified in a field of `width` (never truncated). */
void pmi_out_rpad(pm_out *o, const char *s, size_t width);
/* Decimal. */
void pmi_out_u64(pm_out *o, uint64_t v);
void pmi_out_i64(pm_out *o, int64_t v);
/* Lower-case hex, zero-padded to at least `digits` (0: no padding), no prefix. */
void pmi_out_hex(pm_out *o, uint64_t v, unsigned digits);
/* "0x" + hex zero-padded to `digits`. */
void pmi_out_0x(pm_out *o, uint64_t v, unsigned digits);

/* The most pmi_put_u64 and pmi_put_hex write. */
enum { PMI_U64_MAX = 20, PMI_HEX_MAX = 20 };
/* Decimal, and hex as pmi_out_hex writes it, at `at` (room for PMI_U64_MAX,
 * PMI_HEX_MAX bytes); return the end.  For a writer that fills its room in
 * the buffer (pmi_out_room) in one piece. */
char *pmi_put_u64(char *at, uint64_t v);
char *pmi_put_hex(char *at, uint64_t v, unsigned digits);

/* Formats into buf (cap >= 24); returns the length.  Never writes past cap. */
size_t pmi_fmt_u64(char *buf, size_t cap, uint64_t v);
size_t pmi_fmt_i64(char *buf, size_t cap, int64_t v);
size_t pmi_fmt_hex(char *buf, size_t cap, uint64_t v, unsigned digits, bool upper);

/* Civil date from days since 1970-01-01 (proleptic Gregorian). */
void pmi_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* "YYYY-MM-DD HH:MM:SS[.frac] +HHMM" (the report's date form). */
void pmi_out_time(pm_out *o, const pm_time *t);

#endif
