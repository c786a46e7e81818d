/*
 * golden_render.c — the golden files' models and their rendering (golden_render.h).
 */
#include "golden_render.h"

#include <stdlib.h>
#include <string.h>

#include "tests/fixture_many.h"
#include "tests/fixture_report.h"
#include "formats/write.h"

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

typedef struct grown {
	char *p;
	size_t len;
} grown;

static bool
append(void *ctx, const char *p, size_t n)
{
	grown *g = ctx;
	char *q = realloc(g->p, g->len + n + 1);
	if (!q)
		return false;
	memcpy(q + g->len, p, n);
	g->p = q;
	g->len += n;
	return true;
}

char *
golden_render(const pm_report *r, pm_format f, size_t cap, size_t *len)
{
	char *buf = malloc(cap);
	grown g = { NULL, 0 };
	pm_out o;
	pmi_out_init_buf(&o, buf, cap);
	o.sink = append;
	o.sink_ctx = &g;
	pm_err e = f == PM_FORMAT_TEXT ? pmi_write_text(r, &o) : pmi_write_json(r, &o);
	free(buf);
	if (e != PM_OK) {
		free(g.p);
		return NULL;
	}
	*len = g.len;
	return g.p;
}
