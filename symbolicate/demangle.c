/*
 * demangle.c — names as people read them: C++, Rust (legacy and v0) and D.
 *
 * libiberty's demangler (Debian's libiberty-dev, PIC, linked statically) is
 * the one binutils' addr2line, nm -C and gdb use, and the only one at hand
 * that knows Rust's v0 scheme; with DMGL_AUTO it tries Rust first, because
 * legacy Rust names are valid C++ names ending in a hash that Rust's own
 * demangler drops.  Only ever called at display time, never on the crash path.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "group.h"
#include "symb.h"
#include "model.h"

char *
pmi_sy_demangle(const char *s)
{
	/* Mangled names start with _Z (C++, legacy Rust), _R (Rust v0) or _D (D). */
	if (s[0] != '_' || (s[1] != 'Z' && s[1] != 'R' && s[1] != 'D'))
		return NULL;
	int style = s[1] == 'D' ? DMGL_DLANG : DMGL_AUTO;
	return cplus_demangle(s, DMGL_PARAMS | DMGL_ANSI | style);
}

char *
pm_demangle(const char *name)
{
	return name ? pmi_sy_demangle(name) : NULL;
}

/* Characters of a mangled name: Itanium and Rust v0 use [A-Za-z0-9_];
 * legacy Rust adds '$' and '.', clones add ".cold" and the like. */
static bool
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

char *
pm_demangle_text(const char *text)
{
	if (!text)
		return NULL;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = NULL;
	const char *done = text;
	for (const char *p = text; *p;) {
		size_t n = 0;
		while (name_char(p[n]))
			n++;
		if (n == 0) {
			p++;
			continue;
		}
		char *word = strndup(p, n);
		char *plain = word ? pmi_sy_demangle(word) : NULL;
		free(word);
		if (plain && !f)
			f = open_memstream(&out, &out_len);
		if (plain && f) {
			fwrite(done, 1, (size_t)(p - done), f);
			fputs(plain, f);
			done = p + n;
		}
		free(plain);
		p += n;
	}
	if (!f)
		return NULL;
	fputs(done, f);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static bool
demangle_frames(pm_report *r, pm_frame *v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++) {
		char *plain = v[i].symbol ? pmi_sy_demangle(v[i].symbol) : NULL;
		if (!plain)
			continue;
		const char *c = pmi_arena_strdup(r->arena, plain);
		free(plain);
		if (!c)
			return false;
		v[i].symbol = c;
	}
	return true;
}

pm_err
pm_demangle_report(pm_report *r)
{
	if (!r)
		return PM_E_INVAL;
	/* Names change: the report keeps the group its names as captured gave (docs/grouping.md). */
	bool ok = pmi_group_keep(r) && demangle_frames(r, r->last_exception_backtrace, r->leb_count);
	/* An uncaught C++ exception's type ("_ZSt13runtime_error"), as the crash path wrote it. */
	for (uint32_t i = 0; ok && r->exception.asi && i < r->exception.asi_count; i++) {
		char *plain = pm_demangle_text(r->exception.asi[i]);
		if (plain && !(r->exception.asi[i] = pmi_arena_strdup(r->arena, plain)))
			ok = false;
		free(plain);
	}
	for (uint32_t t = 0; ok && r->threads && t < r->thread_count; t++)
		ok = demangle_frames(r, r->threads[t].frames, r->threads[t].frame_count);
	return ok ? PM_OK : PM_E_NOMEM;
}
