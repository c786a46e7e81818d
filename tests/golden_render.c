/*
 * golden_render.c — the golden files' models and their rendering (golden_render.h).
 */
#include "golden_render.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/fixture_many.h"
#include "tests/fixture_report.h"
#include "formats/text/text.h"
#include "formats/json/json.h"

/* 24 threads: every variation of fixture_many.c's thread cycles (up to 17) appears. */
static void
many(pm_report *r)
{
	if (!pm_fixture_many(r, 24, 35))
		abort();
}

const golden_model golden_models[] = {
	{ "linux_crash", pm_fixture_linux_crash },
	{ "arm64_apple", pm_fixture_arm64_apple },
	{ "many", many },
};
const size_t golden_model_count = sizeof golden_models / sizeof golden_models[0];

const char *
golden_ext(pm_format f)
{
	return f == PM_FORMAT_TEXT ? ".crash" : ".json";
}

char *
golden_render(const pm_report *r, pm_format f, size_t cap, size_t *len)
{
	FILE *tmp = tmpfile();
	char *buf = malloc(cap), *s = NULL;
	pm_out o;
	pmi_out_init_fd(&o, fileno(tmp), buf, cap);
	pm_err e = f == PM_FORMAT_TEXT ? pmi_write_text(r, &o) : pmi_write_json(r, &o);
	long n = ftell(tmp) >= 0 && fseek(tmp, 0, SEEK_END) == 0 ? ftell(tmp) : -1;
	if (e == PM_OK && n >= 0 && (s = malloc((size_t)n + 1)) != NULL) {
		rewind(tmp);
		if (fread(s, 1, (size_t)n, tmp) == (size_t)n) {
			*len = (size_t)n;
		} else {
			free(s);
			s = NULL;
		}
	}
	free(buf);
	fclose(tmp);
	return s;
}
