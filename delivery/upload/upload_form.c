/*
 * upload_form.c — the multipart form that carries one report.
 *
 * Parts "report" (the JSON twin), "crash" (the text) and, when the report
 * has one, "upload_file_minidump" (the name Breakpad's and Crashpad's
 * uploaders give the minidump, which crash servers look for), each gzipped into
 * application/gzip with a ".gz" file name unless no_gzip: per-part gzip keeps
 * the request a plain multipart form that any server's form parser reads,
 * which a request-wide Content-Encoding would not.  The files on disk are
 * sent byte for byte, except when symbolicating, where both parts are
 * written from the symbolicated model instead, and for a report kept as text
 * alone, whose twin is written from the text.  The minidump is always sent
 * as written: servers unwind and symbolicate it themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "text.h"
#include "json.h"
#include "upload.h"

typedef struct blob {
	char *p;
	size_t len, cap;
} blob;

static bool
blob_sink(void *ctx, const char *p, size_t n)
{
	blob *b = ctx;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap - b->len < n)
			cap *= 2;
		char *grown = realloc(b->p, cap);
		if (!grown)
			return false;
		b->p = grown;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return true;
}

static pm_err
write_model(const pm_report *r, pm_err (*writer)(const pm_report *, pm_out *), blob *b)
{
	char chunk[1 << 14];
	pm_out o;
	pmi_out_init_buf(&o, chunk, sizeof chunk);
	o.sink = blob_sink;
	o.sink_ctx = b;
	pm_err e = writer(r, &o);
	return e == PM_OK && !o.failed ? PM_OK : PM_E_NOMEM;
}

/* Add a file part from b (freed here), gzipped unless opt says not to. */
static pm_err
add_file(curl_mime *m, const pm_upload_options *opt, const char *name, const char *id,
         const char *ext, const char *type, blob *b)
{
	char filename[96];
	const char *data = b->p;
	size_t len = b->len;
	char *gz = NULL;
	if (!opt->no_gzip) {
		pm_err e = pmi_upload_gzip(b->p, b->len, &gz, &len);
		if (e != PM_OK) {
			free(b->p);
			return e;
		}
		data = gz;
		type = "application/gzip";
	}
	snprintf(filename, sizeof filename, "%s%s%s", id, ext, opt->no_gzip ? "" : ".gz");
	curl_mimepart *part = curl_mime_addpart(m);
	bool ok = part && curl_mime_name(part, name) == CURLE_OK
	          && curl_mime_filename(part, filename) == CURLE_OK
	          && curl_mime_type(part, type) == CURLE_OK
	          && curl_mime_data(part, data ? data : "", len) == CURLE_OK;
	free(gz);
	free(b->p);
	return ok ? PM_OK : PM_E_NOMEM;
}

static bool
add_field(curl_mime *m, const char *name, const char *value)
{
	curl_mimepart *part = curl_mime_addpart(m);
	return part && curl_mime_name(part, name) == CURLE_OK
	       && curl_mime_data(part, value, CURL_ZERO_TERMINATED) == CURLE_OK;
}

/* Both file parts (either may be missing from a partial report); frees the blobs. */
static pm_err
add_files(curl_mime *m, const pm_upload_options *opt, const char *id, blob *json, blob *text)
{
	pm_err e = json->p ? add_file(m, opt, "report", id, ".json", "application/json", json) : PM_OK;
	if (e == PM_OK && text->p)
		return add_file(m, opt, "crash", id, ".crash", "text/plain", text);
	free(text->p);
	return e;
}

/* One file of the report through the store's directory descriptor: a
 * regular file, never a symlink; a missing one is left out. */
static pm_err
read_kind(int dfd, const char *id, pm_skind kind, blob *b)
{
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, id, kind);
	pm_err e = pmi_store_slurp(dfd, name, PM_READ_MAX_BYTES, false, &b->p, &b->len, NULL);
	return e == PM_E_NOTFOUND ? PM_OK : e;
}

static pm_err
read_files(pm_store *s, const char *id, blob *json, blob *text)
{
	pm_sentry *en = pmi_store_find(s, id);
	if (!en)
		return PM_E_NOTFOUND;
	int dfd = s->dir[pmi_store_state_dir(en->pub.state)];
	pm_err e = read_kind(dfd, id, PM_SK_JSON, json);
	if (e == PM_OK)
		e = read_kind(dfd, id, PM_SK_CRASH, text);
	if (e == PM_OK && !json->p && !text->p)
		e = PM_E_NOTFOUND;
	return e;
}

/* The minidump part, when the report has one. */
static pm_err
add_minidump(curl_mime *m, const pm_upload_options *opt, pm_store *s, const char *id)
{
	pm_sentry *en = pmi_store_find(s, id);
	blob b = { 0 };
	/* Gone since the listing (read_kind leaves it out): send the rest. */
	pm_err e = en ? read_kind(s->dir[pmi_store_state_dir(en->pub.state)], id, PM_SK_DMP, &b) : PM_OK;
	if (e != PM_OK || !b.p) {
		free(b.p);
		return e;
	}
	return add_file(m, opt, "upload_file_minidump", id, ".dmp", "application/octet-stream", &b);
}

static pm_err
write_files(const pm_report *r, blob *json, blob *text)
{
	pm_err e = write_model(r, pmi_write_json, json);
	return e == PM_OK ? write_model(r, pmi_write_text, text) : e;
}

/* A report kept as text alone (its twin could not be written) still goes out
 * with a twin: our own reader rebuilds the model from the text. */
static pm_err
rebuild_twin(pm_store *s, const char *id, blob *json)
{
	pm_report r;
	pm_err e = pm_store_load(s, id, &r, NULL);
	if (e == PM_OK)
		e = write_model(&r, pmi_write_json, json);
	pm_report_free(&r);
	return e;
}

/* The model, when something asks for it: symbolication, or names the caller left to the report. */
static bool
load_model(pm_store *s, const pm_store_entry *en, const pm_upload_options *opt, pm_report *r)
{
	if (!opt->symbolicate && opt->app_name && opt->app_version)
		return false;
	pm_read_error err = { 0 };
	pm_report_init(r);
	pm_err e = pm_store_load(s, en->id, r, &err);
	if (e != PM_OK) {
		pm_report_free(r);
		pmi_upload_log("%s: cannot load the report (%s): sending its files as they are", en->id,
		           err.message[0] ? err.message : pm_strerror(e));
		return false;
	}
	if (opt->symbolicate && (e = pm_symbolicate(r, NULL)) != PM_OK)
		pmi_upload_log("%s: symbolication failed (%s)", en->id, pm_strerror(e));
	return true;
}

/* The crash group: its signature and title, and on its latest report the crashes of it
 * storm control counted without their files. */
static bool
add_group(curl_mime *m, const pm_store_entry *en, const pmi_group_note *g)
{
	char n[24], first[24], last[24];
	bool ok = !en->signature[0] || (add_field(m, "signature", en->signature) && add_field(m, "title", en->title));
	if (!ok || !g || g->not_sent == 0)
		return ok;
	snprintf(n, sizeof n, "%llu", (unsigned long long)g->not_sent);
	snprintf(first, sizeof first, "%lld", (long long)g->first);
	snprintf(last, sizeof last, "%lld", (long long)g->last);
	return add_field(m, "group_not_sent", n) && add_field(m, "group_not_sent_first", first) &&
	       add_field(m, "group_not_sent_last", last);
}

static pm_err
add_fields(curl_mime *m, const pm_store_entry *en, const pm_upload_options *opt, const pm_report *r,
           const pmi_group_note *g)
{
	const char *name = opt->app_name, *version = opt->app_version;
	if (!name && r)
		name = r->header.identifier ? r->header.identifier : r->header.process_name;
	if (!name)
		name = en->app;
	if (!version && r)
		version = r->header.version;
	bool ok = add_field(m, "app_name", name)
	          && (!version || add_field(m, "app_version", version))
	          && add_field(m, "id", en->id)
	          && add_field(m, "state", en->state == PM_STATE_PARTIAL ? "partial" : "pending")
	          && add_group(m, en, g);
	return ok ? PM_OK : PM_E_NOMEM;
}

pm_err
pmi_upload_form_build(upload_session *u, pm_store *s, const pm_store_entry *en, const pmi_group_note *group,
                  curl_mime **form, char *why, size_t why_cap)
{
	const pm_upload_options *opt = u->opt;
	pm_report r;
	bool loaded = load_model(s, en, opt, &r);
	blob json = { 0 }, text = { 0 };
	pm_err e = loaded && opt->symbolicate ? write_files(&r, &json, &text)
	                                      : read_files(s, en->id, &json, &text);
	if (e == PM_OK && !json.p)
		e = rebuild_twin(s, en->id, &json);
	curl_mime *m = curl_mime_init(u->curl);
	if (e == PM_OK && !m)
		e = PM_E_NOMEM;
	if (e == PM_OK) {
		e = add_files(m, opt, en->id, &json, &text);
		if (e == PM_OK)
			e = add_minidump(m, opt, s, en->id);
	} else {
		free(json.p);
		free(text.p);
	}
	if (e == PM_OK)
		e = add_fields(m, en, opt, loaded ? &r : NULL, group);
	if (loaded)
		pm_report_free(&r);
	if (e != PM_OK) {
		snprintf(why, why_cap, "%s", e == PM_E_NOTFOUND ? "no report file to send"
		                            : e == PM_E_LIMIT ? "a report file is too large to upload"
		                            : pm_strerror(e));
		curl_mime_free(m);
		return e;
	}
	*form = m;
	return PM_OK;
}
