/*
 * store_read.c — reports from the store's files, whole or torn, and the
 * few facts an entry keeps of them.
 */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_prefix.h"

pm_err
pmi_store_read_json(int dfd, const char *id, pm_report *r, pm_read_error *err)
{
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, id, PM_SK_JSON);
	char *data;
	size_t len;
	pm_err e = pmi_store_slurp(dfd, name, PM_READ_MAX_BYTES, false, &data, &len, err);
	if (e != PM_OK)
		return e;
	e = pm_read_json(data, len, r, err);
	free(data);
	return e;
}

pm_err
pmi_store_read_torn(int dfd, const char *name, bool json, size_t max, bool prefix, pm_report *r,
                   pm_read_error *err)
{
	char *data;
	size_t len;
	pm_err e = pmi_store_slurp(dfd, name, max, prefix, &data, &len, err);
	if (e != PM_OK)
		return e;
	if (json) {
		size_t closed_len = 0;
		char *closed = pmi_json_close_prefix(data, len, &closed_len);
		if (closed)
			e = pm_read_json(closed, closed_len, r, err);
		else
			e = pmi_read_fail(err, 1, "%s: no JSON object to salvage", name);
		free(closed);
	} else {
		e = pm_read_text(data, len, r, err);
	}
	free(data);
	return e;
}

pm_err
pmi_store_read_any(int dfd, const char *id, pm_report *r, pm_read_error *err)
{
	pm_err e = pmi_store_read_json(dfd, id, r, err);
	if (e == PM_OK)
		return PM_OK;
	pm_report_free(r);
	pm_report_init(r);
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, id, PM_SK_CRASH);
	pm_read_error text_err = { 0 };
	pm_err te = pmi_store_read_torn(dfd, name, false, PM_READ_MAX_BYTES, false, r, &text_err);
	if (te == PM_OK)
		return PM_OK;
	/* Report the JSON's problem unless there was no JSON at all. */
	if (e == PM_E_NOTFOUND) {
		if (err)
			*err = text_err;
		return te;
	}
	return e;
}

void
pmi_store_copy_printable(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	for (; s && s[n] && n + 1 < cap; n++)
		out[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
	out[n] = '\0';
}

static const char *
app_of(const pm_report *r)
{
	return r->header.process_name ? r->header.process_name : r->header.identifier;
}

void
pmi_store_summarize(pm_sentry *e, const pm_report *r)
{
	const pm_header *h = &r->header;
	const pm_exception *x = &r->exception;
	e->pub.time = h->time.set ? h->time.sec : 0;
	e->launch = h->launch_time.set ? h->launch_time.sec : 0;
	e->pid = h->pid;
	e->kind = r->kind;
	if (e->pub.time)
		e->order = e->pub.time;
	pmi_store_copy_printable(e->pub.app, sizeof e->pub.app, app_of(r));
	char exc[sizeof e->pub.exception];
	if (x->type && x->signal_name)
		snprintf(exc, sizeof exc, "%s (%s)", x->type, x->signal_name);
	else
		snprintf(exc, sizeof exc, "%s", x->type ? x->type : x->signal_name ? x->signal_name : "");
	pmi_store_copy_printable(e->pub.exception, sizeof e->pub.exception, exc);
	pm_report_group(r, e->pub.signature, e->pub.title);
}

pm_err
pm_store_load(pm_store *s, const char *id, pm_report *r, pm_read_error *err)
{
	if (!r)
		return PM_E_INVAL;
	pm_report_init(r);
	pm_sentry *e = pmi_store_find(s, id);
	if (!e)
		return PM_E_NOTFOUND;
	return pmi_store_read_any(s->dir[pmi_store_state_dir(e->pub.state)], id, r, err);
}
