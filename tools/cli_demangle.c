/*
 * cli_demangle.c — a stored .crash shown with readable names.
 *
 * `show` prints a stored report as it is, partial ones too, so it cannot go
 * through the model; the crash path writes names as .symtab has them
 * (demangling allocates), so each word that starts like a mangled name is
 * replaced by what pm_demangle makes of it, and everything else passes
 * through byte for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static bool
starts_word(const char *line, const char *p)
{
	return (p == line || p[-1] == ' ' || p[-1] == '\t') && p[0] == '_' &&
	       (p[1] == 'Z' || p[1] == 'R' || p[1] == 'D');
}

/* fputs of the line, its mangled words demangled; EOF when writing failed. */
int
cli_put_demangled(FILE *f, const char *line)
{
	const char *p = line, *done = line;
	for (; *p; p++) {
		if (!starts_word(line, p))
			continue;
		size_t n = strcspn(p, " \t\n");
		char *word = strndup(p, n);
		char *plain = word ? pm_demangle(word) : NULL;
		free(word);
		if (!plain)
			continue;
		int rc = fwrite(done, 1, (size_t)(p - done), f) == (size_t)(p - done) ? fputs(plain, f) : EOF;
		free(plain);
		if (rc == EOF)
			return EOF;
		p += n - 1;
		done = p + 1;
	}
	return fputs(done, f);
}
