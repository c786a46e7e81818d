/*
 * cli_ascii.c — the CLI's own words in the user's character set.
 *
 * Explanations and messages use a few typographic characters (an em dash,
 * an ellipsis).  A terminal under LC_ALL=C or a Latin-1 locale shows their
 * UTF-8 bytes as garbage, so unless the locale's character set is UTF-8
 * they become their ASCII spellings, and any other non-ASCII character '?'.
 */
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const struct {
	const char *utf8, *ascii;
} spellings[] = {
	{ "\u2014", "--" }, { "\u2013", "-" }, { "\u2026", "..." }, { "\u2192", "->" }, { "\u2190", "<-" },
	{ "\u2018", "'" },  { "\u2019", "'" }, { "\u201c", "\"" },  { "\u201d", "\"" }, { "\u00a0", " " },
	{ "\u00d7", "x" },  { "\u2264", "<=" }, { "\u2265", ">=" },
};

bool
cli_locale_is_utf8(void)
{
	static int known = -1;
	if (known < 0) {
		setlocale(LC_CTYPE, "");
		const char *cs = nl_langinfo(CODESET);
		known = cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
	}
	return known;
}

/* Bytes in the UTF-8 sequence that starts with c (1 for a stray byte). */
static size_t
sequence_length(unsigned char c)
{
	return c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

char *
cli_for_locale(const char *text)
{
	if (cli_locale_is_utf8())
		return strdup(text);
	/* No spelling is longer than the UTF-8 it replaces. */
	char *out = malloc(strlen(text) + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		if ((unsigned char)*p < 0x80) {
			*o++ = *p++;
			continue;
		}
		size_t n = sequence_length((unsigned char)*p), k = 0;
		while (k < n && p[k])
			k++;
		const char *ascii = "?";
		for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
			if (strlen(spellings[i].utf8) == k && memcmp(spellings[i].utf8, p, k) == 0)
				ascii = spellings[i].ascii;
		o = stpcpy(o, ascii);
		p += k;
	}
	*o = '\0';
	return out;
}
