#include "symb_util.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *
symb_program(const char *name)
{
	return pm_test_build("tests/symbolicate/%s", name);
}

uint32_t
symb_marker_line(const char *source, const char *marker)
{
	char rel[256], tag[128];
	snprintf(rel, sizeof rel, "tests/symbolicate/programs/%s", source);
	size_t n = (size_t)snprintf(tag, sizeof tag, "LINE:%s", marker);
	char *text = pm_test_slurp(pm_test_source("%s", rel), NULL);
	uint32_t line = 1;
	const char *p = text;
	for (; *p; p++) {
		if (*p == '\n')
			line++;
		else if (strncmp(p, tag, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_')
			break;
	}
	cr_assert(*p, "no marker %s in %s", tag, source);
	free(text);
	return line;
}

void
symb_crash(crash_run *run, const char *path, const char *arg)
{
	/* Copies outside the build tree lose the relative rpath to libpostmortem.so. */
	char *lib_path;
	cr_assert(asprintf(&lib_path, "LD_LIBRARY_PATH=%s", pm_test_build(".")) > 0);
	const char *env[] = { lib_path, NULL };
	const char *args[] = { arg, NULL };
	crash_run_program(run, path, args, env);
	free(lib_path);
}

char *
symb_fmt(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&s, fmt, ap) >= 0);
	va_end(ap);
	return s;
}

void
symb_sh(const char *fmt, ...)
{
	char *cmd, *out;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&cmd, fmt, ap) > 0);
	va_end(ap);
	int status = pm_test_run(cmd, &out);
	cr_assert_eq(status, 0, "'%s' failed: %s", cmd, out);
	free(out);
	free(cmd);
}

const pm_thread *
symb_crashed(const pm_report *r)
{
	int32_t t = pm_report_crashed_thread(r);
	cr_assert(t >= 0, "the report has no crashed thread");
	return &r->threads[t];
}

const pm_image *
symb_app_image(const pm_report *r)
{
	for (uint32_t i = 0; i < r->image_count; i++)
		if (r->images[i].is_app)
			return &r->images[i];
	cr_assert_fail("no app image");
	return NULL;
}

uint32_t
symb_frame(const pm_thread *t, const char *symbol)
{
	for (uint32_t i = 0; i < t->frame_count; i++)
		if (t->frames[i].symbol && strcmp(t->frames[i].symbol, symbol) == 0)
			return i;
	cr_assert_fail("no frame named %s", symbol);
	return 0;
}

bool
symb_ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);
	return s && n >= m && strcmp(s + n - m, suffix) == 0;
}

void
symb_expect_frame(const pm_frame *f, const char *symbol, const char *file, uint32_t line, bool inlined)
{
	cr_expect_str_eq(f->symbol ? f->symbol : "(none)", symbol);
	cr_expect(symb_ends_with(f->file, file), "%s: file %s, expected …%s", symbol, f->file ? f->file : "(none)",
	          file);
	cr_expect_eq(f->line, line, "%s: line %u, expected %u", symbol, f->line, line);
	cr_expect_eq(f->inlined, inlined, "%s: inlined is %d", symbol, f->inlined);
}

char *
symb_text(const pm_report *r)
{
	char *text = NULL;
	cr_assert_eq(pm_write_report_string(r, PM_FORMAT_TEXT, &text, NULL), PM_OK);
	return text;
}
