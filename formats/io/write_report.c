/*
 * write_report.c — the writers as tools call them: to a descriptor, a
 * callback or a malloc'd string, with the sink and its buffer kept inside.
 * NOT AS-safe (the string grows with realloc); the crash path calls
 * pmi_write_* over buffers it prepared at install.
 */
#include "json.h"
#include "text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Big enough that a report goes out in a few writes, small enough for any stack. */
enum { CHUNK = 16 * 1024 };

static pm_err
write_as(const pm_report *r, pm_format f, pm_out *o)
{
	if (f == PM_FORMAT_TEXT)
		return pmi_write_text(r, o);
	if (f == PM_FORMAT_JSON)
		return pmi_write_json(r, o);
	return PM_E_UNSUPPORTED;
}

pm_err
pm_write_report_fd(const pm_report *r, pm_format f, int fd)
{
	if (!r || fd < 0)
		return PM_E_INVAL;
	char buf[CHUNK];
	pm_out o;
	pmi_out_init_fd(&o, fd, buf, sizeof buf);
	return write_as(r, f, &o);
}

typedef struct callback {
	pm_write_fn *fn;
	void *ctx;
	bool stopped;
} callback;

/* The sink goes on offering bytes after a refusal; the caller's callback is not asked again. */
static bool
until_refused(void *ctx, const char *p, size_t n)
{
	callback *c = ctx;
	c->stopped = c->stopped || !c->fn(c->ctx, p, n);
	return !c->stopped;
}

pm_err
pm_write_report_cb(const pm_report *r, pm_format f, pm_write_fn *fn, void *ctx)
{
	if (!r || !fn)
		return PM_E_INVAL;
	char buf[CHUNK];
	pm_out o;
	callback c = { fn, ctx, false };
	pmi_out_init_buf(&o, buf, sizeof buf);
	o.sink = until_refused;
	o.sink_ctx = &c;
	return write_as(r, f, &o);
}

typedef struct growing {
	char *p;
	size_t len, cap;
	bool nomem;
} growing;

static bool
append(void *ctx, const char *p, size_t n)
{
	growing *g = ctx;
	if (n > SIZE_MAX - g->len - 1 || !pmi_grow((void **)&g->p, &g->cap, g->len + n + 1, 1)) {
		g->nomem = true;
		return false;
	}
	memcpy(g->p + g->len, p, n);
	g->len += n;
	g->p[g->len] = '\0';
	return true;
}

pm_err
pm_write_report_string(const pm_report *r, pm_format f, char **out, size_t *len)
{
	if (!out)
		return PM_E_INVAL;
	growing g = { 0 };
	pm_err e = pm_write_report_cb(r, f, append, &g);
	if (e == PM_OK && !g.p && !append(&g, "", 0))
		e = PM_E_NOMEM;
	if (e != PM_OK) {
		free(g.p);
		g.p = NULL;
		g.len = 0;
		if (g.nomem)
			e = PM_E_NOMEM;
	}
	*out = g.p;
	if (len)
		*len = g.len;
	return e;
}
