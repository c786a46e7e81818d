/*
 * read_text_scan.c — bounded lexing of input slices for the .crash reader.
 *
 * Character classes are ASCII by hand: <ctype.h> depends on the locale and
 * strto* want NUL-terminated text, which the input is not.
 */
#include "model.h"
#include "read_text.h"
#include "text_escape.h"

#include <string.h>

bool
pmi_tx_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

bool
pmi_tx_is_hex(char c)
{
	return pmi_tx_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool
pmi_tx_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

unsigned
pmi_tx_hex_value(char c)
{
	if (pmi_tx_is_digit(c))
		return (unsigned)(c - '0');
	return (unsigned)((c | 0x20) - 'a' + 10);
}

tx_span
pmi_tx_span(const char *p, size_t n)
{
	return (tx_span){ p, n };
}

tx_span
pmi_tx_ltrim(tx_span s)
{
	while (s.n > 0 && pmi_tx_is_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	return s;
}

tx_span
pmi_tx_rtrim(tx_span s)
{
	while (s.n > 0 && pmi_tx_is_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

tx_span
pmi_tx_trim(tx_span s)
{
	return pmi_tx_rtrim(pmi_tx_ltrim(s));
}

tx_span
pmi_tx_head(tx_span s, size_t n)
{
	return pmi_tx_span(s.p, n < s.n ? n : s.n);
}

tx_span
pmi_tx_tail(tx_span s, size_t from)
{
	return from < s.n ? pmi_tx_span(s.p + from, s.n - from) : pmi_tx_span(s.p + s.n, 0);
}

bool
pmi_tx_eq(tx_span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}

bool
pmi_tx_starts(tx_span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

bool
pmi_tx_skip(tx_span *s, const char *lit)
{
	if (!pmi_tx_starts(*s, lit))
		return false;
	*s = pmi_tx_tail(*s, strlen(lit));
	return true;
}

bool
pmi_tx_cut_suffix(tx_span *s, const char *lit)
{
	size_t n = strlen(lit);
	if (s->n < n || memcmp(s->p + s->n - n, lit, n) != 0)
		return false;
	s->n -= n;
	return true;
}

size_t
pmi_tx_find(tx_span s, const char *lit)
{
	size_t n = strlen(lit);
	if (n == 0 || n > s.n)
		return s.n;
	for (size_t i = 0; i + n <= s.n; i++) {
		const char *hit = memchr(s.p + i, lit[0], s.n - n + 1 - i);
		if (!hit)
			break;
		i = (size_t)(hit - s.p);
		if (memcmp(hit, lit, n) == 0)
			return i;
	}
	return s.n;
}

size_t
pmi_tx_find_char(tx_span s, char c)
{
	const char *hit = s.n ? memchr(s.p, c, s.n) : NULL;
	return hit ? (size_t)(hit - s.p) : s.n;
}

size_t
pmi_tx_rfind_char(tx_span s, char c)
{
	for (size_t i = s.n; i > 0; i--)
		if (s.p[i - 1] == c)
			return i - 1;
	return s.n;
}

tx_span
pmi_tx_token(tx_span *s)
{
	tx_span t = pmi_tx_ltrim(*s);
	size_t i = 0;
	while (i < t.n && !pmi_tx_is_space(t.p[i]))
		i++;
	*s = pmi_tx_tail(t, i);
	return pmi_tx_head(t, i);
}

bool
pmi_tx_take_dec(tx_span *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0;
	for (; i < s->n && pmi_tx_is_digit(s->p[i]); i++) {
		unsigned d = (unsigned)(s->p[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (i == 0)
		return false;
	*v = x;
	*s = pmi_tx_tail(*s, i);
	return true;
}

bool
pmi_tx_take_xdigits(tx_span *s, uint64_t *v, size_t *digits)
{
	uint64_t x = 0;
	size_t i = 0;
	for (; i < s->n && pmi_tx_is_hex(s->p[i]); i++) {
		if (x >> 60)
			return false;
		x = x << 4 | pmi_tx_hex_value(s->p[i]);
	}
	if (i == 0)
		return false;
	*v = x;
	*digits = i;
	*s = pmi_tx_tail(*s, i);
	return true;
}

bool
pmi_tx_take_hex(tx_span *s, uint64_t *v)
{
	tx_span t = *s;
	size_t digits;
	if ((!pmi_tx_skip(&t, "0x") && !pmi_tx_skip(&t, "0X")) || !pmi_tx_take_xdigits(&t, v, &digits))
		return false;
	*s = t;
	return true;
}

bool
pmi_tx_dec(tx_span s, uint64_t *v)
{
	return pmi_tx_take_dec(&s, v) && s.n == 0;
}

bool
pmi_tx_hex(tx_span s, uint64_t *v)
{
	return pmi_tx_take_hex(&s, v) && s.n == 0;
}

void
pmi_tx_name_pid(tx_span s, tx_span *name, int64_t *pid)
{
	s = pmi_tx_trim(s);
	*name = s;
	*pid = -1;
	size_t open = pmi_tx_rfind_char(s, '[');
	uint64_t v;
	if (open == s.n || s.p[s.n - 1] != ']' ||
	    !pmi_tx_dec(pmi_tx_span(s.p + open + 1, s.n - open - 2), &v) || v > INT64_MAX)
		return;
	*name = pmi_tx_rtrim(pmi_tx_head(s, open));
	*pid = (int64_t)v;
}

void
pmi_tx_name_queue(tx_span s, tx_span *name, tx_span *queue)
{
	static const char label[] = "Dispatch queue:";
	size_t at = pmi_tx_find(s, label);
	*name = pmi_tx_trim(pmi_tx_head(s, at));
	*queue = pmi_tx_trim(pmi_tx_tail(s, at + sizeof label - 1));
}

const char *
pmi_tx_strndup(pm_arena *a, const char *p, size_t n)
{
	char *c = (char *)pmi_arena_strndup(a, p, n);
	if (c)
		c[pmi_text_unescape(c, n)] = '\0';
	return c;
}

const char *
pmi_tx_copy(pm_arena *a, tx_span s)
{
	return s.n ? pmi_tx_strndup(a, s.p, s.n) : NULL;
}

const char *
pmi_tx_copy_known(pm_arena *a, tx_span s)
{
	return pmi_tx_eq(s, "???") ? NULL : pmi_tx_copy(a, s);
}

bool
pmi_tx_cstr(tx_span s, char *buf, size_t cap)
{
	if (s.n >= cap || memchr(s.p, '\0', s.n))
		return false;
	memcpy(buf, s.p, s.n);
	buf[s.n] = '\0';
	return true;
}

void *
pmi_tx_grow(pm_arena *a, void *arr, uint32_t count, uint32_t *cap, size_t elem)
{
	if (count < *cap)
		return arr;
	uint32_t ncap = *cap ? *cap * 2 : 8;
	void *n = pmi_arena_alloc(a, (size_t)ncap * elem, 16);
	if (!n)
		return NULL;
	if (count)
		memcpy(n, arr, (size_t)count * elem);
	*cap = ncap;
	return n;
}

void
pmi_tx_push_line(pm_arena *a, const char ***arr, uint32_t *count, uint32_t *cap, tx_span s)
{
	if (*count >= TX_MAX_LINES)
		return;
	const char **n = pmi_tx_grow(a, *arr, *count, cap, sizeof **arr);
	const char *copy = pmi_tx_strndup(a, s.p, s.n);
	if (!n || !copy)
		return;
	*arr = n;
	n[(*count)++] = copy;
}
