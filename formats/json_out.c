/*
 * json_out.c — AS-SAFE JSON emitter (see json_out.h).
 *
 * Runs in the crash handler: only pm_out_* is used.
 */
#include "json_out.h"

#include <stdint.h>
#include <string.h>

#include "out.h"

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

/* Keys, names and symbols are mostly short and need no escape. */
enum { PLAIN_MAX = 120 };

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

/*
 * put_string's common case, copied into the buffer as it is scanned: a
 * string of at most PLAIN_MAX bytes with nothing to escape, then `tail`
 * (at most 2 bytes).  False, with nothing appended, for any other string.
 */
static bool
put_plain(pm_out *o, const char *s, size_t n, bool to_nul, const char *tail, size_t tail_n)
{
	char *p = pmi_out_room(o, PLAIN_MAX + 4);
	if (!p)
		return false;
	size_t lim = n < PLAIN_MAX ? n : PLAIN_MAX, i = 0;
	char *q = p + 1;
	while (i < lim && plain((unsigned char)s[i])) {
		q[i] = s[i];
		i++;
	}
	if (i != n && !(to_nul && i < lim && s[i] == '\0'))
		return false;
	p[0] = '"';
	q[i] = '"';
	memcpy(q + i + 1, tail, tail_n);
	pmi_out_wrote(o, q + i + 1 + tail_n);
	return true;
}

/*
 * RFC 8259 string of s[0..n), or of s up to its NUL (to_nul): only '"', '\\'
 * and bytes below 0x20 need escaping.  Stopping at the NUL in the same pass
 * spares the writers a strlen of every key and value first.
 */
static void
put_string(pm_out *o, const char *s, size_t n, bool to_nul)
{
	if (put_plain(o, s, n, to_nul, "", 0))
		return;
	size_t run = 0, i = 0;
	pmi_out_ch(o, '"');
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (plain(c))
			continue;
		if (c == '\0' && to_nul)
			break;
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
	put_string(o, s, n, false);
}

void
pmi_jw_next(pm_jw *w)
{
	size_t indent = w->one_line ? 0 : 2 * (size_t)w->depth;
	char sep[2], *p = pmi_out_room(w->o, sizeof sep + indent), *q = p ? p : sep;
	if (!w->empty)
		*q++ = ',';
	if (!w->one_line)
		*q++ = '\n';
	else if (!w->empty)
		*q++ = ' ';
	if (p) {
		for (size_t i = 0; i < indent; i++)
			*q++ = ' ';
		pmi_out_wrote(w->o, q);
	} else {
		pmi_out_put(w->o, sep, (size_t)(q - sep));
		pmi_out_rep(w->o, ' ', indent);
	}
	w->empty = false;
}

void
pmi_jw_key(pm_jw *w, const char *key)
{
	pmi_jw_next(w);
	if (put_plain(w->o, key, SIZE_MAX, true, ": ", 2))
		return;
	put_string(w->o, key, SIZE_MAX, true);
	pmi_out_put(w->o, ": ", 2);
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
	put_string(w->o, s, SIZE_MAX, true);
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
	pmi_out_str(w->o, "true");
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
			put_string(w->o, s[i], SIZE_MAX, true);
		else
			pmi_out_str(w->o, "null");
	}
	pmi_jw_close(w, ']', p);
}

