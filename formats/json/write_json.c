/*
 * write_json.c — AS-SAFE writer of the JSON twin (docs/json-schema.md).
 *
 * Runs in the crash handler: only the json_out.c emitter and pm_out_* are used, nothing is
 * allocated, and nesting follows the model's fixed shape (at most five open
 * containers: root, threads, thread, frames, frame).
 *
 * Layout (json_out.c): one member or element per line, except that the small
 * leaf containers (frames, register values, times, header extras, raw_codes)
 * go on one line each, so a report diffs line by line.
 */
#include "write_json.h"

#include "json_twin.h"

#include "json_out.h"
#include "model.h"

static const char *const kind_names[] = { "crash", "snapshot", "hang" };
static const char *const os_names[] = { "unknown", "linux", "darwin" };
static const char *const how_names[] = { NULL, "context", "cfi", "fp", "scan" };
static const char *const arch_names[] = { NULL, "x86_64", "arm64", "arm32", "x86" };

#define NAMES(a) { a, sizeof a / sizeof a[0] }
const pm_json_names pmi_json_kinds = NAMES(kind_names);
const pm_json_names pmi_json_oses = NAMES(os_names);
const pm_json_names pmi_json_hows = NAMES(how_names);
const pm_json_names pmi_json_arches = NAMES(arch_names);

const char *
pmi_json_name_of(const pm_json_names *names, unsigned v)
{
	return v < names->count ? names->name[v] : NULL;
}

static void
enum_member(pm_jw *w, const char *key, const pm_json_names *names, unsigned v)
{
	pmi_jw_str(w, key, pmi_json_name_of(names, v));
}

/* Writes one array element. */
typedef void elem_writer(pm_jw *w, const void *elem);

/*
 * Array member `key` of n elements of `size` bytes; absent when empty, and when the
 * crash path's arena ran out before the array existed (a count without its array).
 */
static void
write_array(pm_jw *w, const char *key, const void *base, uint32_t n, size_t size, elem_writer *fn)
{
	if (n == 0 || !base)
		return;
	pmi_jw_key(w, key);
	bool p = pmi_jw_open(w, '[', false);
	for (uint32_t i = 0; i < n; i++) {
		pmi_jw_next(w);
		fn(w, (const char *)base + i * size);
	}
	pmi_jw_close(w, ']', p);
}

static void
write_time(pm_jw *w, const char *key, const pm_time *t)
{
	if (!t->set)
		return;
	pmi_jw_key(w, key);
	bool p = pmi_jw_open(w, '{', true);
	pmi_jw_i64(w, "sec", t->sec);
	pmi_jw_u64(w, "usec", t->usec);
	pmi_jw_i64(w, "tz_min", t->tz_min);
	pmi_jw_u64(w, "digits", t->digits);
	pmi_jw_close(w, '}', p);
}

static void
write_kv(pm_jw *w, const void *elem)
{
	const pm_kv *kv = elem;
	bool p = pmi_jw_open(w, '{', true);
	pmi_jw_str(w, "key", kv->key);
	pmi_jw_str(w, "value", kv->value);
	pmi_jw_close(w, '}', p);
}

static void
write_crumb(pm_jw *w, const void *elem)
{
	const pm_crumb *c = elem;
	bool p = pmi_jw_open(w, '{', true);
	write_time(w, "time", &c->time);
	pmi_jw_str(w, "message", c->message);
	pmi_jw_close(w, '}', p);
}

/* pid members: -1 is the model's "unknown". */
static void
pid_member(pm_jw *w, const char *key, int64_t pid)
{
	if (pid != -1)
		pmi_jw_i64(w, key, pid);
}

static void
write_header(pm_jw *w, const pm_header *h)
{
	pmi_jw_key(w, "header");
	bool p = pmi_jw_open(w, '{', false);
	pmi_jw_str(w, "incident_id", h->incident_id);
	pmi_jw_str(w, "crash_reporter_key", h->crash_reporter_key);
	pmi_jw_str(w, "hardware_model", h->hardware_model);
	pmi_jw_str(w, "process_name", h->process_name);
	pid_member(w, "pid", h->pid);
	pmi_jw_str(w, "process_path", h->process_path);
	pmi_jw_str(w, "identifier", h->identifier);
	pmi_jw_str(w, "version", h->version);
	pmi_jw_str(w, "code_type", h->code_type);
	pmi_jw_str(w, "role", h->role);
	pmi_jw_str(w, "parent_name", h->parent_name);
	pid_member(w, "parent_pid", h->parent_pid);
	pmi_jw_str(w, "responsible", h->responsible);
	pmi_jw_str(w, "coalition", h->coalition);
	pmi_jw_str(w, "user_id", h->user_id);
	write_time(w, "time", &h->time);
	write_time(w, "launch_time", &h->launch_time);
	if (h->start_ticks)
		pmi_jw_u64(w, "start_ticks", h->start_ticks);
	pmi_jw_str(w, "os_version", h->os_version);
	pmi_jw_str(w, "release_type", h->release_type);
	pmi_jw_str(w, "baseband_version", h->baseband_version);
	pmi_jw_str(w, "report_version", h->report_version);
	write_array(w, "extra", h->extra, h->extra_count, sizeof *h->extra, write_kv);
	pmi_jw_close(w, '}', p);
}

static bool
has_termination(const pm_exception *e)
{
	return e->term_namespace || e->has_term_code || e->term_indicator ||
	       e->term_reason_count > 0 || e->term_description || e->term_flags != 0 ||
	       e->terminating_process || e->terminating_pid != -1;
}

static void
write_termination(pm_jw *w, const pm_exception *e)
{
	if (!has_termination(e))
		return;
	pmi_jw_key(w, "termination");
	bool p = pmi_jw_open(w, '{', false);
	pmi_jw_str(w, "namespace", e->term_namespace);
	if (e->has_term_code)
		pmi_jw_u64(w, "code", e->term_code);
	pmi_jw_str(w, "indicator", e->term_indicator);
	pmi_jw_strings(w, "reasons", e->term_reasons, e->term_reason_count);
	pmi_jw_str(w, "description", e->term_description);
	if (e->term_flags != 0)
		pmi_jw_u64(w, "flags", e->term_flags);
	pmi_jw_str(w, "by_proc", e->terminating_process);
	pid_member(w, "by_pid", e->terminating_pid);
	pmi_jw_close(w, '}', p);
}

static void
write_raw_codes(pm_jw *w, const pm_exception *e)
{
	const uint32_t cap = sizeof e->raw_codes / sizeof e->raw_codes[0];
	uint32_t n = e->raw_code_count < cap ? e->raw_code_count : cap;
	if (n == 0)
		return;
	pmi_jw_key(w, "raw_codes");
	bool p = pmi_jw_open(w, '[', true);
	for (uint32_t i = 0; i < n; i++) {
		pmi_jw_next(w);
		pmi_out_u64(w->o, e->raw_codes[i]);
	}
	pmi_jw_close(w, ']', p);
}

static void
write_exception(pm_jw *w, const pm_exception *e)
{
	pmi_jw_key(w, "exception");
	bool p = pmi_jw_open(w, '{', false);
	pmi_jw_str(w, "type", e->type);
	pmi_jw_str(w, "signal_name", e->signal_name);
	if (e->signal != 0)
		pmi_jw_i64(w, "signal", e->signal);
	if (e->has_si_code)
		pmi_jw_i64(w, "si_code", e->si_code);
	if (e->has_address)
		pmi_jw_u64(w, "address", e->address);
	pmi_jw_str(w, "subtype", e->subtype);
	pmi_jw_str(w, "message", e->message);
	pmi_jw_str(w, "codes", e->codes);
	write_raw_codes(w, e);
	pmi_jw_str(w, "note", e->note);
	pmi_jw_str(w, "vm_region_info", e->vm_region_info);
	write_termination(w, e);
	if (e->triggered_thread >= 0)
		pmi_jw_i64(w, "triggered_thread", e->triggered_thread);
	pmi_jw_flag(w, "highlighted", e->highlighted);
	pmi_jw_strings(w, "asi", e->asi, e->asi_count);
	pmi_jw_str(w, "kernel_triage", e->kernel_triage);
	pmi_jw_close(w, '}', p);
}

/* The most a frame's object takes besides its strings: keys and
 * punctuation (about 130 bytes) and five numbers. */
enum { FRAME_FIXED_MAX = 160 + 5 * PMI_U64_MAX };

/* Literal `lit` at q; the end. */
#define LITERAL_AT(q, lit) ((char *)memcpy((q), (lit), sizeof(lit) - 1) + sizeof(lit) - 1)
/* `key` (a literal: ", \"name\": ") then number v, at q; the end. */
#define NUMBER_AT(q, key, v) pmi_put_u64(LITERAL_AT(q, key), (v))

/* `key` (a literal) then s[0..n) in quotes, at q, when s is there; the end. */
#define STRING_AT(q, key, s, n) string_at((q), (key), sizeof(key) - 1, (s), (n))

static char *
string_at(char *q, const char *key, size_t key_n, const char *s, size_t n)
{
	if (!s)
		return q;
	memcpy(q, key, key_n);
	q += key_n;
	*q++ = '"';
	memcpy(q, s, n);
	q[n] = '"';
	return q + n + 1;
}

/*
 * write_frame's common case — every string of the frame needs no escape
 * and the whole object fits the buffer — written in one piece: nine
 * members were nine room checks and as many updates of the sink and the
 * emitter's state, most of a frame's time.  False, with nothing written,
 * for any other frame.
 */
static bool
write_frame_at_once(pm_jw *w, const pm_frame *f, const char *how)
{
	const char *s[4] = { f->image_name, f->symbol, f->file, how };
	size_t n[4] = { 0 };
	for (size_t i = 0; i < 4; i++)
		if (s[i] && !pmi_jw_plain_len(w, s[i], &n[i]))
			return false;
	char *p = pmi_out_room(w->o, FRAME_FIXED_MAX + n[0] + n[1] + n[2] + n[3]);
	if (!p)
		return false;
	char *q = NUMBER_AT(p, "{\"address\": ", f->address);
	if (f->image >= 0)
		q = NUMBER_AT(q, ", \"image\": ", (uint64_t)f->image);
	q = STRING_AT(q, ", \"image_name\": ", s[0], n[0]);
	q = STRING_AT(q, ", \"symbol\": ", s[1], n[1]);
	if (f->has_offset)
		q = NUMBER_AT(q, ", \"offset\": ", f->symbol_offset);
	q = STRING_AT(q, ", \"file\": ", s[2], n[2]);
	if (f->line != 0)
		q = NUMBER_AT(q, ", \"line\": ", f->line);
	if (f->column != 0)
		q = NUMBER_AT(q, ", \"column\": ", f->column);
	if (f->inlined)
		q = LITERAL_AT(q, ", \"inlined\": true");
	q = STRING_AT(q, ", \"how\": ", s[3], n[3]);
	*q++ = '}';
	pmi_out_wrote(w->o, q);
	w->empty = false;
	return true;
}

/* One frame object, on one line; shared by thread frames and last_exception_backtrace. */
static void
write_frame(pm_jw *w, const void *elem)
{
	const pm_frame *f = elem;
	if (write_frame_at_once(w, f, pmi_json_name_of(&pmi_json_hows, f->how)))
		return;
	bool p = pmi_jw_open(w, '{', true);
	pmi_jw_u64(w, "address", f->address);
	if (f->image >= 0)
		pmi_jw_i64(w, "image", f->image);
	pmi_jw_str(w, "image_name", f->image_name);
	pmi_jw_str(w, "symbol", f->symbol);
	if (f->has_offset)
		pmi_jw_u64(w, "offset", f->symbol_offset);
	pmi_jw_str(w, "file", f->file);
	if (f->line != 0)
		pmi_jw_u64(w, "line", f->line);
	if (f->column != 0)
		pmi_jw_u64(w, "column", f->column);
	pmi_jw_flag(w, "inlined", f->inlined);
	enum_member(w, "how", &pmi_json_hows, f->how);
	pmi_jw_close(w, '}', p);
}

/* Register names are fixed arrays: never read past them, even without a NUL. */
static size_t
reg_name_len(const pm_reg *g)
{
	size_t n = 0;
	while (n < PM_REG_NAME_MAX && g->name[n])
		n++;
	return n;
}

/* "name": value, in one piece when the name needs no escape and it fits. */
static void
write_reg(pm_jw *w, const pm_reg *reg)
{
	size_t n = reg_name_len(reg);
	char *p = pmi_out_room(w->o, pmi_jw_sep_max(w) + PM_REG_NAME_MAX + 4 + PMI_U64_MAX);
	if (p && pmi_jw_plain(reg->name, n)) {
		char *q = STRING_AT(pmi_jw_sep(w, p), "", reg->name, n);
		pmi_out_wrote(w->o, NUMBER_AT(q, ": ", reg->value));
		return;
	}
	pmi_jw_next(w);
	pmi_jw_string(w->o, reg->name, n);
	pmi_out_put(w->o, ": ", 2);
	pmi_out_u64(w->o, reg->value);
}

static void
write_reg_values(pm_jw *w, const pm_regs *g)
{
	unsigned n = g->count < PM_MAX_REGS ? g->count : PM_MAX_REGS;
	if (n == 0)
		return;
	pmi_jw_key(w, "values");
	bool p = pmi_jw_open(w, '{', true);
	for (unsigned i = 0; i < n; i++)
		write_reg(w, &g->reg[i]);
	pmi_jw_close(w, '}', p);
}

static void
write_registers(pm_jw *w, const pm_regs *g)
{
	if (!g)
		return;
	pmi_jw_key(w, "registers");
	bool p = pmi_jw_open(w, '{', false);
	enum_member(w, "arch", &pmi_json_arches, g->arch);
	write_reg_values(w, g);
	if (g->has_trap) {
		pmi_jw_u64(w, "trap", g->trap_number);
		pmi_jw_u64(w, "error_code", g->error_code);
	}
	if (g->has_cpu)
		pmi_jw_u64(w, "cpu", g->logical_cpu);
	pmi_jw_str(w, "trap_description", g->trap_description);
	pmi_jw_str(w, "esr_description", g->esr_description);
	pmi_jw_close(w, '}', p);
}

static void
write_thread(pm_jw *w, const void *elem)
{
	const pm_thread *t = elem;
	bool p = pmi_jw_open(w, '{', false);
	pmi_jw_u64(w, "number", t->number);
	if (t->id != 0)
		pmi_jw_u64(w, "id", t->id);
	pmi_jw_str(w, "name", t->name);
	pmi_jw_str(w, "queue", t->queue);
	pmi_jw_flag(w, "crashed", t->crashed);
	pmi_jw_flag(w, "attributed", t->attributed);
	pmi_jw_flag(w, "captured", t->captured);
	pmi_jw_str(w, "note", t->note);
	pmi_jw_flag(w, "frames_truncated", t->frames_truncated);
	write_registers(w, t->regs);
	write_array(w, "frames", t->frames, t->frame_count, sizeof *t->frames, write_frame);
	pmi_jw_close(w, '}', p);
}

static void
put_hex_bytes(pm_out *o, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pmi_out_hex(o, b[i], 2);
}

/* code_id: the build id as it is; debug_id: the name Sentry and Breakpad give it. */
static void
write_ids(pm_jw *w, const pm_image *im)
{
	size_t n = im->build_id_len < PM_BUILD_ID_MAX ? im->build_id_len : PM_BUILD_ID_MAX;
	if (n == 0)
		return;
	pmi_jw_key(w, "code_id");
	pmi_out_ch(w->o, '"');
	put_hex_bytes(w->o, im->build_id, n);
	pmi_out_ch(w->o, '"');

	uint8_t id[16];
	pm_image_debug_id(im, w->os, id);
	pmi_jw_key(w, "debug_id");
	pmi_out_ch(w->o, '"');
	pmi_out_uuid(w->o, id, true);
	pmi_out_ch(w->o, '"');
}

static void
write_image(pm_jw *w, const void *elem)
{
	const pm_image *im = elem;
	bool p = pmi_jw_open(w, '{', false);
	pmi_jw_u64(w, "start", im->start);
	pmi_jw_u64(w, "size", im->size);
	pmi_jw_str(w, "name", im->name);
	pmi_jw_str(w, "path", im->path);
	pmi_jw_str(w, "arch", im->arch);
	pmi_jw_str(w, "version", im->version);
	write_ids(w, im);
	pmi_jw_flag(w, "app", im->is_app);
	if (im->source) {
		pmi_jw_key(w, "source");
		pmi_jw_string(w->o, &im->source, 1);
	}
	pmi_jw_str(w, "debug_file", im->debug_file);
	pmi_jw_str(w, "note", im->note);
	pmi_jw_close(w, '}', p);
}

pm_err
pmi_write_json(const pm_report *r, pm_out *o)
{
	pm_jw w = { .o = o, .empty = true, .os = r->os };
	bool p = pmi_jw_open(&w, '{', false);
	pmi_jw_str(&w, "schema", PM_JSON_SCHEMA);
	pmi_jw_u64(&w, "schema_version", PM_SCHEMA_VERSION);
	enum_member(&w, "kind", &pmi_json_kinds, r->kind);
	enum_member(&w, "os", &pmi_json_oses, r->os);
	pmi_jw_str(&w, "os_name", r->os_name);
	/* Near the top: the store's storm control reads them from the file's first bytes. */
	pmi_jw_str(&w, "signature", r->signature);
	pmi_jw_str(&w, "title", r->title);
	write_header(&w, &r->header);
	write_exception(&w, &r->exception);
	write_array(&w, "threads", r->threads, r->thread_count, sizeof *r->threads, write_thread);
	pmi_jw_flag(&w, "threads_truncated", r->threads_truncated);
	write_array(&w, "images", r->images, r->image_count, sizeof *r->images, write_image);
	pmi_jw_flag(&w, "images_truncated", r->images_truncated);
	write_array(&w, "last_exception_backtrace", r->last_exception_backtrace, r->leb_count,
	            sizeof *r->last_exception_backtrace, write_frame);
	write_array(&w, "annotations", r->annotations, r->annotation_count, sizeof *r->annotations, write_kv);
	write_array(&w, "breadcrumbs", r->breadcrumbs, r->breadcrumb_count, sizeof *r->breadcrumbs, write_crumb);
	/* Last, so that a file torn anywhere before it lacks it. */
	pmi_jw_flag(&w, "complete", r->complete);
	pmi_jw_close(&w, '}', p);
	pmi_out_ch(o, '\n');
	pmi_out_flush(o);
	if (o->failed)
		return PM_E_IO;
	return o->overflow ? PM_E_LIMIT : PM_OK;
}
