/*
 * json_out.c — AS-SAFE JSON emitter (see json_out.h).
 *
 * Runs in the crash handler: only pm_out_* is used.
 */
#include "json_out.h"

#include <stdint.h>
#include <string.h>

#include "model.h"

/* The bytes RFC 8259 makes a string escape: one load per byte, where
 * three comparisons were the writer's largest cost. */
static const bool needs_escape[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1,
};

static bool
plain(unsigned char c)
{
	return !needs_escape[c];
}

/* Whether s[0..n) needs no escape. */
static bool
all_plain(const char *s, size_t n)
{
	return pmi_out_plain(s, n, '"', '\\');
}

static void
put_escape(pm_out *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
	for (size_t i = 0; i < sizeof from - 1; i++) {
		if (c == (unsigned char)from[i]) {
			char e[2] = { '\\', to[i] };
			pmi_out_put(o, e, 2);
			return;
		}
	}
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
	pmi_out_put(o, u, sizeof u);
}

/* s[0..n) in quotes at p (room for n + 2 bytes). */
static void
put_quoted(pm_out *o, char *p, const char *s, size_t n)
{
	p[0] = '"';
	memcpy(p + 1, s, n);
	p[n + 1] = '"';
	pmi_out_wrote(o, p + n + 2);
}

/*
 * RFC 8259 string of s[0..n): only '"', '\\' and bytes below 0x20 need
 * escaping.  Names and symbols mostly need none: those that fit the buffer
 * go in with one copy.
 */
static void
put_string(pm_out *o, const char *s, size_t n)
{
	char *p = pmi_out_room(o, n + 2);
	if (p && all_plain(s, n)) {
		put_quoted(o, p, s, n);
		return;
	}
	size_t run = 0, i = 0;
	pmi_out_ch(o, '"');
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (plain(c))
			continue;
		pmi_out_put(o, s + run, i - run);
		put_escape(o, c);
		run = i + 1;
	}
	pmi_out_put(o, s + run, i - run);
	pmi_out_ch(o, '"');
}

void
pmi_jw_string(pm_out *o, const char *s, size_t n)
{
	put_string(o, s, n);
}

bool
pmi_jw_plain(const char *s, size_t n)
{
	return all_plain(s, n);
}

bool
pmi_jw_plain_len(pm_jw *w, const char *s, size_t *n)
{
	size_t k = pmi_lens_slot(s);
	if (w->plain.s[k] != s) {
		size_t len = strlen(s);
		if (!all_plain(s, len))
			return false;
		w->plain.s[k] = s;
		w->plain.n[k] = len;
	}
	*n = w->plain.n[k];
	return true;
}

void
pmi_jw_cstring(pm_jw *w, const char *s)
{
	size_t n;
	char *p;
	if (pmi_jw_plain_len(w, s, &n) && (p = pmi_out_room(w->o, n + 2)) != NULL)
		put_quoted(w->o, p, s, n);
	else
		put_string(w->o, s, strlen(s));
}

void
pmi_jw_next_slow(pm_jw *w)
{
	char tmp[2], *q = tmp;
	if (!w->empty)
		*q++ = ',';
	if (!w->one_line)
		*q++ = '\n';
	else if (!w->empty)
		*q++ = ' ';
	pmi_out_put(w->o, tmp, (size_t)(q - tmp));
	pmi_out_rep(w->o, ' ', w->one_line ? 0 : 2 * (size_t)w->depth);
	w->empty = false;
}

void
pmi_jw_key(pm_jw *w, const char *key)
{
	size_t n = strlen(key);
	char *p = pmi_out_room(w->o, pmi_jw_sep_max(w) + n + 4);
	if (!p) {
		pmi_jw_next(w);
		pmi_out_ch(w->o, '"');
		pmi_out_put(w->o, key, n);
		pmi_out_put(w->o, "\": ", 3);
		return;
	}
	char *q = pmi_jw_sep(w, p);
	*q++ = '"';
	memcpy(q, key, n);
	memcpy(q + n, "\": ", 3);
	pmi_out_wrote(w->o, q + n + 3);
}

/* The parent's one_line is all pmi_jw_close needs to restore it. */
bool
pmi_jw_open(pm_jw *w, char bracket, bool one_line)
{
	bool parent_one_line = w->one_line;
	pmi_out_ch(w->o, bracket);
	w->depth++;
	w->empty = true;
	w->one_line = parent_one_line || one_line;
	return parent_one_line;
}

void
pmi_jw_close(pm_jw *w, char bracket, bool parent_one_line)
{
	w->depth--;
	if (!w->empty && !w->one_line) {
		pmi_out_ch(w->o, '\n');
		pmi_out_rep(w->o, ' ', 2 * w->depth);
	}
	pmi_out_ch(w->o, bracket);
	w->empty = false;
	w->one_line = parent_one_line;
}

void
pmi_jw_str(pm_jw *w, const char *key, const char *s)
{
	if (!s)
		return;
	pmi_jw_key(w, key);
	pmi_jw_cstring(w, s);
}

void
pmi_jw_u64(pm_jw *w, const char *key, uint64_t v)
{
	pmi_jw_key(w, key);
	pmi_out_u64(w->o, v);
}

void
pmi_jw_i64(pm_jw *w, const char *key, int64_t v)
{
	pmi_jw_key(w, key);
	pmi_out_i64(w->o, v);
}

void
pmi_jw_flag(pm_jw *w, const char *key, bool set)
{
	if (!set)
		return;
	pmi_jw_key(w, key);
	pmi_out_put(w->o, "true", 4);
}

void
pmi_jw_strings(pm_jw *w, const char *key, const char *const *s, uint32_t n)
{
	/* A count without its array: the crash path's arena ran out. */
	if (n == 0 || !s)
		return;
	pmi_jw_key(w, key);
	bool p = pmi_jw_open(w, '[', false);
	for (uint32_t i = 0; i < n; i++) {
		pmi_jw_next(w);
		if (s[i])
			pmi_jw_cstring(w, s[i]);
		else
			pmi_out_str(w->o, "null");
	}
	pmi_jw_close(w, ']', p);
}

