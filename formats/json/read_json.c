/*
 * read_json.c — reader of the JSON twin (docs/json-schema.md): schema check,
 * top level, header and exception.  Threads and images: read_json_threads.c;
 * typed access and the hostile-input policy: read_json_value.c.
 */
#include "read_json.h"

#include <inttypes.h>
#include <string.h>

#include "json_util.h"

static void
read_time(pm_jr *c, const cJSON *parent, const char *key, pm_time *t)
{
	const cJSON *o = pmi_jr_object(c, parent, key);
	if (!o)
		return;
	size_t mark = pmi_jr_enter(c, key);
	int64_t v;
	pmi_jr_i64(c, o, "sec", &t->sec);
	if (pmi_jr_range(c, o, "usec", 0, 999999, &v))
		t->usec = (uint32_t)v;
	if (pmi_jr_range(c, o, "tz_min", INT16_MIN, INT16_MAX, &v))
		t->tz_min = (int16_t)v;
	if (pmi_jr_range(c, o, "digits", 0, 6, &v))
		t->digits = (uint8_t)v;
	t->set = true;
	pmi_jr_leave(c, mark);
}

static void
read_extra_elem(pm_jr *c, const cJSON *it, void *dst)
{
	pm_kv *kv = dst;
	const cJSON *o = pmi_jr_object(c, it, NULL);
	kv->key = pmi_jr_str(c, o, "key");
	kv->value = pmi_jr_str(c, o, "value");
	/* A header line always has both halves (the writers print them). */
	if (!kv->key)
		kv->key = "";
	if (!kv->value)
		kv->value = "";
}

static void
read_crumb_elem(pm_jr *c, const cJSON *it, void *dst)
{
	pm_crumb *cr = dst;
	const cJSON *o = pmi_jr_object(c, it, NULL);
	read_time(c, o, "time", &cr->time);
	cr->message = pmi_jr_str(c, o, "message");
}

static void
read_header(pm_jr *c, const cJSON *root)
{
	const cJSON *o = pmi_jr_object(c, root, "header");
	if (!o)
		return;
	pm_header *h = &c->r->header;
	size_t mark = pmi_jr_enter(c, "header");
	h->incident_id = pmi_jr_str(c, o, "incident_id");
	h->crash_reporter_key = pmi_jr_str(c, o, "crash_reporter_key");
	h->hardware_model = pmi_jr_str(c, o, "hardware_model");
	h->process_name = pmi_jr_str(c, o, "process_name");
	pmi_jr_i64(c, o, "pid", &h->pid);
	h->process_path = pmi_jr_str(c, o, "process_path");
	h->identifier = pmi_jr_str(c, o, "identifier");
	h->version = pmi_jr_str(c, o, "version");
	h->code_type = pmi_jr_str(c, o, "code_type");
	h->role = pmi_jr_str(c, o, "role");
	h->parent_name = pmi_jr_str(c, o, "parent_name");
	pmi_jr_i64(c, o, "parent_pid", &h->parent_pid);
	h->responsible = pmi_jr_str(c, o, "responsible");
	h->coalition = pmi_jr_str(c, o, "coalition");
	h->user_id = pmi_jr_str(c, o, "user_id");
	read_time(c, o, "time", &h->time);
	read_time(c, o, "launch_time", &h->launch_time);
	pmi_jr_u64(c, o, "start_ticks", &h->start_ticks);
	h->os_version = pmi_jr_str(c, o, "os_version");
	h->release_type = pmi_jr_str(c, o, "release_type");
	h->baseband_version = pmi_jr_str(c, o, "baseband_version");
	h->report_version = pmi_jr_str(c, o, "report_version");
	h->extra = pmi_jr_list(c, o, "extra", PM_JR_MAX_LINES, sizeof *h->extra,
	                      read_extra_elem, &h->extra_count, NULL);
	pmi_jr_leave(c, mark);
}

static void
read_termination(pm_jr *c, const cJSON *exc, pm_exception *e)
{
	const cJSON *o = pmi_jr_object(c, exc, "termination");
	if (!o)
		return;
	size_t mark = pmi_jr_enter(c, "termination");
	e->term_namespace = pmi_jr_str(c, o, "namespace");
	e->has_term_code = pmi_jr_u64(c, o, "code", &e->term_code);
	e->term_indicator = pmi_jr_str(c, o, "indicator");
	e->term_reasons = pmi_jr_list(c, o, "reasons", PM_JR_MAX_LINES, sizeof *e->term_reasons,
	                             pmi_jr_string_elem, &e->term_reason_count, NULL);
	e->term_description = pmi_jr_str(c, o, "description");
	pmi_jr_u32(c, o, "flags", &e->term_flags);
	e->terminating_process = pmi_jr_str(c, o, "by_proc");
	pmi_jr_i64(c, o, "by_pid", &e->terminating_pid);
	pmi_jr_leave(c, mark);
}

static void
read_code_elem(pm_jr *c, const cJSON *it, void *dst)
{
	pmi_jr_u64(c, it, NULL, dst);
}

/* The model holds four codes, like Mach exceptions; more are dropped. */
static void
read_raw_codes(pm_jr *c, const cJSON *exc, pm_exception *e)
{
	uint32_t n = 0;
	const uint64_t *codes = pmi_jr_list(c, exc, "raw_codes", sizeof e->raw_codes / sizeof *codes,
	                                   sizeof *codes, read_code_elem, &n, NULL);
	if (codes)
		memcpy(e->raw_codes, codes, n * sizeof *codes);
	e->raw_code_count = n;
}

static void
read_exception(pm_jr *c, const cJSON *root)
{
	const cJSON *o = pmi_jr_object(c, root, "exception");
	if (!o)
		return;
	pm_exception *e = &c->r->exception;
	size_t mark = pmi_jr_enter(c, "exception");
	e->type = pmi_jr_str(c, o, "type");
	e->signal_name = pmi_jr_str(c, o, "signal_name");
	pmi_jr_i32(c, o, "signal", &e->signal);
	e->has_si_code = pmi_jr_i32(c, o, "si_code", &e->si_code);
	e->has_address = pmi_jr_u64(c, o, "address", &e->address);
	e->subtype = pmi_jr_str(c, o, "subtype");
	e->message = pmi_jr_str(c, o, "message");
	e->codes = pmi_jr_str(c, o, "codes");
	read_raw_codes(c, o, e);
	e->note = pmi_jr_str(c, o, "note");
	e->vm_region_info = pmi_jr_str(c, o, "vm_region_info");
	read_termination(c, o, e);
	/* A thread number as the report printed it: kept even when the report does
	 * not list that thread (fragments do), as the text reader keeps it. */
	int64_t t;
	if (pmi_jr_i64(c, o, "triggered_thread", &t) && t >= 0 && t <= INT32_MAX)
		e->triggered_thread = (int32_t)t;
	e->highlighted = pmi_jr_flag(c, o, "highlighted");
	e->asi = pmi_jr_list(c, o, "asi", PM_JR_MAX_LINES, sizeof *e->asi,
	                    pmi_jr_string_elem, &e->asi_count, NULL);
	e->kernel_triage = pmi_jr_str(c, o, "kernel_triage");
	pmi_jr_leave(c, mark);
}

static pm_err
check_schema(const cJSON *root, pm_read_error *err)
{
	if (!cJSON_IsObject(root))
		return pmi_read_fail(err, 0, "not a postmortem JSON twin: the document is not an object");
	const cJSON *schema = pmi_json_get(root, "schema");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, PM_JSON_SCHEMA) != 0)
		return pmi_read_fail(err, 0, "not a postmortem JSON twin: \"schema\" is not \"%s\"",
		                    PM_JSON_SCHEMA);
	int64_t version;
	if (!pmi_json_get_i64(root, "schema_version", &version))
		return pmi_read_fail(err, 0, "schema_version: missing or not an integer");
	if (version != PM_SCHEMA_VERSION) {
		pmi_read_fail(err, 0, "schema_version %" PRId64 " is not supported (this reader knows %d)",
		             version, PM_SCHEMA_VERSION);
		return PM_E_UNSUPPORTED;
	}
	return PM_OK;
}

/* Images before threads: frames check their image indices. */
static void
read_report(pm_jr *c, const cJSON *root)
{
	pm_report *r = c->r;
	r->format = PM_FORMAT_JSON;
	r->kind = pmi_jr_enum(c, root, "kind", &pmi_json_kinds);
	r->os = pmi_jr_enum(c, root, "os", &pmi_json_oses);
	r->os_name = pmi_jr_str(c, root, "os_name");
	r->signature = pmi_jr_str(c, root, "signature");
	r->title = pmi_jr_str(c, root, "title");
	r->images_truncated = pmi_jr_flag(c, root, "images_truncated");
	r->images = pmi_jr_list(c, root, "images", PM_JR_MAX_IMAGES, sizeof *r->images,
	                       pmi_jr_image_elem, &r->image_count, &r->images_truncated);
	r->threads_truncated = pmi_jr_flag(c, root, "threads_truncated");
	r->threads = pmi_jr_list(c, root, "threads", PM_JR_MAX_THREADS, sizeof *r->threads,
	                        pmi_jr_thread_elem, &r->thread_count, &r->threads_truncated);
	r->last_exception_backtrace = pmi_jr_list(c, root, "last_exception_backtrace",
	                                         PM_JR_MAX_FRAMES, sizeof *r->last_exception_backtrace,
	                                         pmi_jr_frame_elem, &r->leb_count, NULL);
	r->annotations = pmi_jr_list(c, root, "annotations", PM_JR_MAX_LINES, sizeof *r->annotations,
	                            read_extra_elem, &r->annotation_count, NULL);
	r->breadcrumbs = pmi_jr_list(c, root, "breadcrumbs", PM_JR_MAX_LINES, sizeof *r->breadcrumbs,
	                            read_crumb_elem, &r->breadcrumb_count, NULL);
	read_header(c, root);
	read_exception(c, root);
	r->complete = pmi_jr_flag(c, root, "complete");
}

pm_err
pm_read_json(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	pm_read_error scratch;
	if (!err)
		err = &scratch;
	memset(err, 0, sizeof *err);
	pm_err checked = pmi_read_check_input(data, len, r, err);
	if (checked != PM_OK)
		return checked;
	/* A torn twin fails here, with the line where the JSON breaks off. */
	cJSON *root = pmi_json_parse(data, len, 0, err);
	if (!root)
		return PM_E_FORMAT;
	pm_err e = check_schema(root, err);
	if (e == PM_OK) {
		pm_jr c = { .r = r, .err = err };
		read_report(&c, root);
		e = c.rc;
	}
	cJSON_Delete(root);
	return e;
}
