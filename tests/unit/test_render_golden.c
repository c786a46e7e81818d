/*
 * test_render_golden.c — the writers' output, byte for byte: each model of
 * golden_render.c rendered now must equal the file in tests/golden/ that
 * the writers of the time wrote (tests/golden/README.md).  Rendered through
 * buffers of several sizes, so that both the writers' in-buffer paths and
 * their paths across a full buffer are held to the same bytes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/golden_render.h"

static char *
golden_file(const char *name, pm_format f, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/golden/%s%s", getenv("PM_SOURCE_ROOT"), name, golden_ext(f));
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp, "cannot open %s", path);
	cr_assert_eq(fseek(fp, 0, SEEK_END), 0);
	long n = ftell(fp);
	cr_assert_gt(n, 0, "%s is empty", path);
	rewind(fp);
	char *s = malloc((size_t)n);
	cr_assert_eq(fread(s, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return s;
}

/* Where two renderings first differ, with the line around it, for the failure message. */
static void
assert_same(const char *what, const char *want, size_t want_len, const char *got, size_t got_len)
{
	size_t i = 0, n = want_len < got_len ? want_len : got_len;
	while (i < n && want[i] == got[i])
		i++;
	if (i == n && want_len == got_len)
		return;
	size_t line = 1, from = 0;
	for (size_t k = 0; k < i; k++)
		if (want[k] == '\n') {
			line++;
			from = k + 1;
		}
	cr_assert_fail("%s: differs from the golden file at byte %zu (line %zu)\n"
	               "  golden: %.*s\n  now:    %.*s", what, i, line,
	               (int)(want_len - from < 160 ? want_len - from : 160), want + from,
	               (int)(got_len - from < 160 ? got_len - from : 160), got + from);
}

static void
check_model(const char *name)
{
	const golden_model *m = NULL;
	for (size_t i = 0; i < golden_model_count; i++)
		if (strcmp(golden_models[i].name, name) == 0)
			m = &golden_models[i];
	cr_assert_not_null(m, "no model %s", name);
	static const pm_format formats[] = { PM_FORMAT_TEXT, PM_FORMAT_JSON };
	/* 64 KiB: the crash path's chunks; 7 bytes: nothing fits a writer's fast path. */
	static const size_t caps[] = { 64 * 1024, 4093, 61, 7 };
	pm_report r;
	pm_report_init(&r);
	m->build(&r);
	for (size_t i = 0; i < 2; i++) {
		size_t want_len;
		char *want = golden_file(m->name, formats[i], &want_len);
		for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
			size_t len;
			char *got = golden_render(&r, formats[i], caps[c], &len);
			cr_assert_not_null(got, "%s%s: the writer failed", m->name, golden_ext(formats[i]));
			char what[128];
			snprintf(what, sizeof what, "%s%s through %zu-byte buffers", m->name,
			         golden_ext(formats[i]), caps[c]);
			assert_same(what, want, want_len, got, len);
			free(got);
		}
		char *s = NULL;
		size_t len = 0;
		cr_assert_eq(pm_write_report_string(&r, formats[i], &s, &len), PM_OK);
		assert_same("pm_write_report_string", want, want_len, s, len);
		free(s);
		free(want);
	}
	pm_report_free(&r);
}

Test(render_golden, linux_crash) { check_model("linux_crash"); }
Test(render_golden, arm64_apple) { check_model("arm64_apple"); }
Test(render_golden, many_threads) { check_model("many"); }
