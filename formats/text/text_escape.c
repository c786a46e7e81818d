/*
 * text_escape.c — AS-SAFE: the one rule by which a name stays on its line
 * in the .crash text, both ways.  A process chooses its name, its threads'
 * names, its executable's path and its environment: a newline there would
 * start a line of the writer's choosing ("Process: x [1]" forged into a
 * report).  So every byte below 0x20 and DEL is written "\xHH" (two
 * lower-case hex digits), and so is a backslash that "x" follows, so that
 * every "\xHH" the reader meets is one the writer made; any other byte,
 * UTF-8 included, is written as it is.  A process's name before its
 * " [pid]" has its '[' escaped too: LLDB's crashlog splits that line at
 * " [" and refuses a report whose name holds one.  The reader turns each "\xHH" back
 * (but "\x00": a name holds no NUL).  Apple's reports have no such escapes
 * to undo: the texts read the same.
 */
#include "text_escape.h"

#include <string.h>

/* Whether s[i] is written escaped (also: one more byte to escape, or 0). */
static bool
special(const char *s, size_t i, size_t n, char also)
{
	unsigned char c = (unsigned char)s[i];
	return c < 0x20 || c == 0x7f || (also && s[i] == also) || (c == '\\' && i + 1 < n && s[i + 1] == 'x');
}

static bool
plain(const char *s, size_t n, char also)
{
	if (pmi_out_plain(s, n, 0x7f, '\\') && (!also || !memchr(s, also, n)))
		return true;
	for (size_t i = 0; i < n; i++)
		if (special(s, i, n, also))
			return false;
	return true;
}

bool
pmi_text_plain(const char *s, size_t n)
{
	return plain(s, n, 0);
}

static void
put(pm_out *o, const char *s, char also)
{
	if (!s)
		return;
	size_t n = strlen(s);
	if (plain(s, n, also)) {
		pmi_out_put(o, s, n);
		return;
	}
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		if (!special(s, i, n, also))
			continue;
		pmi_out_put(o, s + run, i - run);
		unsigned char c = (unsigned char)s[i];
		char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
		pmi_out_put(o, e, sizeof e);
		run = i + 1;
	}
	pmi_out_put(o, s + run, n - run);
}

void
pmi_text_put(pm_out *o, const char *s)
{
	put(o, s, 0);
}

void
pmi_text_put_proc(pm_out *o, const char *s)
{
	put(o, s, '[');
}

size_t
pmi_text_len(const char *s)
{
	size_t n = s ? strlen(s) : 0, len = n;
	if (!pmi_text_plain(s ? s : "", n))
		for (size_t i = 0; i < n; i++)
			len += special(s, i, n, 0) ? 3 : 0;
	return len;
}

void
pmi_text_lpad(pm_out *o, const char *s, size_t width)
{
	size_t n = pmi_text_len(s);
	pmi_text_put(o, s);
	if (n < width)
		pmi_out_rep(o, ' ', width - n);
}

static int
hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

size_t
pmi_text_unescape(char *s, size_t n)
{
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		int hi = i + 3 < n && s[i] == '\\' && s[i + 1] == 'x' ? hex_digit(s[i + 2]) : -1;
		int lo = hi >= 0 ? hex_digit(s[i + 3]) : -1;
		if (lo >= 0 && (hi | lo)) {
			s[out++] = (char)(hi << 4 | lo);
			i += 3;
			continue;
		}
		s[out++] = s[i];
	}
	return out;
}
