/*
 * write_text.c — AS-SAFE writer of the Apple-style .crash text (classic iOS
 * layout, docs/text-format.md).  Runs in the crash handler and offline alike:
 * only pm_out_* and strlen/strcmp are used; the model is never modified.
 * Every string of the model goes out through text_escape.c: a name with a
 * newline stays on its line (docs/text-format.md, "Escapes").
 *
 *   pmi_write_text()
 *     write_header()      identity block, time/OS block
 *     write_exception()   Exception …, Termination …, Triggered by Thread
 *     write_sections()    Kernel Triage, Application Specific Information,
 *                         Last Exception Backtrace
 *     write_threads()     one block per thread
 *     pmi_write_thread_state()   write_text_regs.c
 *     write_images()      Binary Images, then EOF
 */
#include "write_text.h"

#include <string.h>

#include "model.h"
#include "text_escape.h"

/* Header values start at column 21: the label with its colon fills 20, then a space. */
static void
field(pm_out *o, const char *label, const char *value)
{
	if (!value)
		return;
	pmi_out_lpad(o, label, 20);
	pmi_out_ch(o, ' ');
	pmi_text_put(o, value);
	pmi_out_ch(o, '\n');
}

/* "name [pid]", with ??? for an unknown name. */
static void
field_proc(pm_out *o, const char *label, const char *name, int64_t pid)
{
	if (!name && pid < 0)
		return;
	pmi_out_lpad(o, label, 20);
	pmi_out_ch(o, ' ');
	pmi_text_put_proc(o, name ? name : "???");
	if (pid >= 0) {
		pmi_out_str(o, " [");
		pmi_out_i64(o, pid);
		pmi_out_ch(o, ']');
	}
	pmi_out_ch(o, '\n');
}

static void
field_time(pm_out *o, const char *label, const pm_time *t)
{
	if (!t->set)
		return;
	pmi_out_lpad(o, label, 20);
	pmi_out_ch(o, ' ');
	pmi_out_time(o, t);
	pmi_out_ch(o, '\n');
}

static void
write_header(const pm_report *r, pm_out *o)
{
	const pm_header *h = &r->header;
	field(o, "Incident Identifier:", h->incident_id);
	field(o, "CrashReporter Key:", h->crash_reporter_key);
	field(o, "Hardware Model:", h->hardware_model);
	field_proc(o, "Process:", h->process_name, h->pid);
	field(o, "Path:", h->process_path);
	field(o, "Identifier:", h->identifier);
	field(o, "Version:", h->version);
	field(o, "Code Type:", h->code_type);
	field(o, "Role:", h->role);
	field_proc(o, "Parent Process:", h->parent_name, h->parent_pid);
	field(o, "Responsible:", h->responsible);
	field(o, "Coalition:", h->coalition);
	field(o, "User ID:", h->user_id);
	pmi_out_str(o, "\n\n");
	field_time(o, "Date/Time:", &h->time);
	field_time(o, "Launch Time:", &h->launch_time);
	field(o, "OS Version:", h->os_version);
	field(o, "Release Type:", h->release_type);
	field(o, "Baseband Version:", h->baseband_version);
	field(o, "Report Version:", h->report_version);
	for (uint32_t i = 0; i < h->extra_count; i++) {
		/* The stored key has no colon; the label column includes one. */
		pmi_text_put(o, h->extra[i].key);
		pmi_out_ch(o, ':');
		size_t n = pmi_text_len(h->extra[i].key) + 1;
		pmi_out_rep(o, ' ', n < 20 ? 21 - n : 1);
		pmi_text_put(o, h->extra[i].value);
		pmi_out_ch(o, '\n');
	}
	pmi_out_ch(o, '\n');
}

/* Exception-block labels are fixed literals on iOS, not a column. */
static void
literal(pm_out *o, const char *prefix, const char *value)
{
	if (!value)
		return;
	pmi_out_str(o, prefix);
	pmi_text_put(o, value);
	pmi_out_ch(o, '\n');
}

static void
write_exception_type(const pm_exception *e, pm_out *o)
{
	if (!e->type && !e->signal_name)
		return;
	pmi_out_str(o, "Exception Type:  ");
	if (e->type && e->signal_name) {
		pmi_text_put(o, e->type);
		pmi_out_str(o, " (");
		pmi_text_put(o, e->signal_name);
		pmi_out_ch(o, ')');
	} else {
		pmi_text_put(o, e->type ? e->type : e->signal_name);
	}
	pmi_out_ch(o, '\n');
}

static void
write_codes(const pm_exception *e, pm_out *o)
{
	if (e->codes) {
		literal(o, "Exception Codes: ", e->codes);
		return;
	}
	if (e->raw_code_count == 0)
		return;
	pmi_out_str(o, "Exception Codes: ");
	for (uint32_t i = 0; i < e->raw_code_count && i < 4; i++) {
		if (i)
			pmi_out_str(o, ", ");
		pmi_out_0x(o, e->raw_codes[i], 16);
	}
	pmi_out_ch(o, '\n');
}

static void
write_termination(const pm_exception *e, pm_out *o)
{
	literal(o, "Termination Signal: ", e->term_indicator);
	if (e->term_namespace) {
		pmi_out_str(o, "Termination Reason: Namespace ");
		pmi_text_put(o, e->term_namespace);
		if (e->has_term_code) {
			pmi_out_str(o, ", Code 0x");
			pmi_out_hex(o, e->term_code, 0);
		}
		pmi_out_ch(o, '\n');
	}
	for (uint32_t i = 0; i < e->term_reason_count; i++) {
		pmi_text_put(o, e->term_reasons[i]);
		pmi_out_ch(o, '\n');
	}
	literal(o, "Termination Description: ", e->term_description);
	if (e->terminating_process || e->terminating_pid >= 0) {
		pmi_out_str(o, "Terminating Process: ");
		pmi_text_put_proc(o, e->terminating_process ? e->terminating_process : "???");
		if (e->terminating_pid >= 0) {
			pmi_out_str(o, " [");
			pmi_out_i64(o, e->terminating_pid);
			pmi_out_ch(o, ']');
		}
		pmi_out_ch(o, '\n');
	}
}

static void
write_exception(const pm_report *r, pm_out *o)
{
	const pm_exception *e = &r->exception;
	write_exception_type(e, o);
	literal(o, "Exception Subtype: ", e->subtype);
	literal(o, "Exception Message: ", e->message);
	write_codes(e, o);
	literal(o, "Exception Note:  ", e->note);
	if (e->vm_region_info) {
		literal(o, "VM Region Info: ", e->vm_region_info);
		pmi_out_ch(o, '\n');
	}
	write_termination(e, o);
	if (e->triggered_thread >= 0) {
		pmi_out_str(o, e->highlighted ? "Highlighted Thread:  " : "Triggered by Thread:  ");
		pmi_out_i64(o, e->triggered_thread);
		pmi_out_ch(o, '\n');
	}
	pmi_out_ch(o, '\n');
}

static const char *
frame_image_name(const pm_report *r, const pm_frame *f)
{
	if (f->image >= 0 && (uint32_t)f->image < r->image_count && r->images[f->image].name)
		return r->images[f->image].name;
	return f->image_name ? f->image_name : "???";
}

/* "symbol + offset", in one piece when it fits the buffer. */
static void
write_symbol(pm_out *o, pmi_lens *lens, const char *symbol, bool has_offset, uint64_t offset)
{
	size_t n = pmi_lens_get(lens, symbol);
	char *p = pmi_out_room(o, n + 3 + PMI_U64_MAX);
	if (!p || !pmi_text_plain(symbol, n)) {
		pmi_text_put(o, symbol);
		if (has_offset) {
			pmi_out_put(o, " + ", 3);
			pmi_out_u64(o, offset);
		}
		return;
	}
	memcpy(p, symbol, n);
	p += n;
	if (has_offset) {
		memcpy(p, " + ", 3);
		p = pmi_put_u64(p + 3, offset);
	}
	pmi_out_wrote(o, p);
}

static void
write_location(const pm_report *r, const pm_frame *f, pmi_lens *lens, pm_out *o)
{
	if (f->symbol) {
		write_symbol(o, lens, f->symbol, f->has_offset, f->symbol_offset);
	} else {
		uint64_t base = 0;
		if (f->image >= 0 && (uint32_t)f->image < r->image_count)
			base = r->images[f->image].start;
		pmi_out_0x(o, base, 0);
		pmi_out_str(o, " + ");
		pmi_out_u64(o, f->address - base);
	}
	/* "(file)" alone would read back as part of the symbol: the text carries
	 * a source location only with its line (the JSON twin keeps the rest). */
	if (f->file && f->line) {
		pmi_out_str(o, " (");
		pmi_text_put(o, f->file);
		pmi_out_ch(o, ':');
		pmi_out_u64(o, f->line);
		pmi_out_ch(o, ')');
	}
	if (f->inlined)
		pmi_out_str(o, " [inlined]");
}

/* The first word of s is w ("ARM" in "ARM (Native)", not in "ARM-64"). */
static bool
first_word_is(const char *s, const char *w)
{
	size_t n = strlen(w);
	return strncmp(s, w, n) == 0 && (s[n] == '\0' || s[n] == ' ');
}

/* A 32-bit process's addresses print in 8 digits, as its own reporter wrote them. */
static unsigned
address_digits(const pm_report *r)
{
	int32_t t = pm_report_crashed_thread(r);
	const pm_regs *g = t >= 0 ? r->threads[t].regs : NULL;
	if (g)
		return g->arch == PM_ARCH_ARM32 || g->arch == PM_ARCH_X86 ? 8 : 16;
	const char *ct = r->header.code_type;
	return ct && (first_word_is(ct, "ARM") || first_word_is(ct, "X86") ||
	              first_word_is(ct, "PPC")) ? 8 : 16;
}

enum { INDEX_WIDTH = 4, IMAGE_WIDTH = 30, COLUMN = 32 };

/*
 * The image column of frame lines ("%-30s"), padded once per image name:
 * a thread's frames lie in a few images, and a frame then copies its
 * column as one fixed-size block (the two bytes past it are overwritten
 * by what follows).  Names longer than the column are not kept.
 */
typedef struct image_columns {
	pmi_lens lens;
	char text[PMI_LENS_SLOTS][COLUMN];
} image_columns;

/* name's padded column, or NULL when name is longer than IMAGE_WIDTH or
 * needs an escape (then *n is more than IMAGE_WIDTH); *n: its length. */
static const char *
image_column(image_columns *c, const char *name, size_t *n)
{
	size_t k = pmi_lens_slot(name);
	if (c->lens.s[k] != name) {
		size_t len = strlen(name);
		c->lens.s[k] = name;
		c->lens.n[k] = pmi_text_plain(name, len) ? len : IMAGE_WIDTH + 1;
		if (len <= IMAGE_WIDTH) {
			memcpy(c->text[k], name, len);
			memset(c->text[k] + len, ' ', COLUMN - len);
		}
	}
	*n = c->lens.n[k];
	return *n <= IMAGE_WIDTH ? c->text[k] : NULL;
}

/* "%-4u%-30s\t0x%0*llx " of frame i: in the buffer in one piece when it
 * fits (a frame line was a dozen appends, a third of the text's time),
 * else piece by piece. */
static void
write_frame_head(pm_out *o, image_columns *columns, uint32_t i, const char *image, uint64_t address,
                 unsigned digits)
{
	size_t n;
	const char *column = image_column(columns, image, &n);
	char *p = column ? pmi_out_room(o, PMI_U64_MAX + COLUMN + 3 + PMI_HEX_MAX + 1) : NULL, idx[24];
	if (!p) {
		pmi_fmt_u64(idx, sizeof idx, i);
		pmi_out_lpad(o, idx, INDEX_WIDTH);
		pmi_text_lpad(o, image, IMAGE_WIDTH);
		pmi_out_put(o, "\t0x", 3);
		pmi_out_hex(o, address, digits);
		pmi_out_ch(o, ' ');
		return;
	}
	char *q = pmi_put_u64(p, i);
	while (q < p + INDEX_WIDTH)
		*q++ = ' ';
	memcpy(q, column, COLUMN);
	q += IMAGE_WIDTH;
	memcpy(q, "\t0x", 3);
	q = pmi_put_hex(q + 3, address, digits);
	*q++ = ' ';
	pmi_out_wrote(o, q);
}

void
pmi_write_frames(const pm_report *r, const pm_frame *frames, uint32_t n, pm_out *o)
{
	unsigned digits = address_digits(r);
	image_columns columns = { 0 };
	pmi_lens symbols = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		write_frame_head(o, &columns, i, frame_image_name(r, &frames[i]), frames[i].address, digits);
		write_location(r, &frames[i], &symbols, o);
		pmi_out_ch(o, '\n');
	}
}

/* A titled block of lines followed by one empty line. */
static void
write_multiline(pm_out *o, const char *title, const char *text)
{
	pmi_out_str(o, title);
	pmi_out_ch(o, '\n');
	pmi_out_str(o, text);
	if (text[0] && text[strlen(text) - 1] != '\n')
		pmi_out_ch(o, '\n');
	pmi_out_ch(o, '\n');
}

/* Indented, so that Apple parsers pass over them (docs/text-format.md, "App context"). */
static void
write_context(const pm_report *r, pm_out *o)
{
	if (r->annotation_count > 0) {
		pmi_out_str(o, "Annotations:\n");
		for (uint32_t i = 0; i < r->annotation_count; i++) {
			pmi_out_str(o, "  ");
			pmi_text_put(o, r->annotations[i].key);
			pmi_out_str(o, ": ");
			pmi_text_put(o, r->annotations[i].value);
			pmi_out_ch(o, '\n');
		}
		pmi_out_ch(o, '\n');
	}
	if (r->breadcrumb_count > 0) {
		pmi_out_str(o, "Breadcrumbs:\n");
		for (uint32_t i = 0; i < r->breadcrumb_count; i++) {
			pmi_out_str(o, "  ");
			pmi_out_time(o, &r->breadcrumbs[i].time);
			pmi_out_str(o, "  ");
			pmi_text_put(o, r->breadcrumbs[i].message);
			pmi_out_ch(o, '\n');
		}
		pmi_out_ch(o, '\n');
	}
}

static void
write_sections(const pm_report *r, pm_out *o)
{
	const pm_exception *e = &r->exception;
	if (e->kernel_triage) {
		write_multiline(o, "Kernel Triage:", e->kernel_triage);
		pmi_out_ch(o, '\n');
	}
	if (e->asi_count > 0) {
		pmi_out_str(o, "Application Specific Information:\n");
		for (uint32_t i = 0; i < e->asi_count; i++) {
			pmi_text_put(o, e->asi[i]);
			pmi_out_ch(o, '\n');
		}
		pmi_out_ch(o, '\n');
	}
	write_context(r, o);
	if (r->leb_count > 0) {
		pmi_out_str(o, "Last Exception Backtrace:\n");
		pmi_write_frames(r, r->last_exception_backtrace, r->leb_count, o);
		pmi_out_ch(o, '\n');
	}
}

static void
write_thread_title(const pm_thread *t, pm_out *o)
{
	if (t->name || t->queue) {
		pmi_out_str(o, "Thread ");
		pmi_out_u64(o, t->number);
		pmi_out_str(o, " name:  ");
		if (t->name)
			pmi_text_put(o, t->name);
		if (t->name && t->queue)
			pmi_out_str(o, "  ");
		if (t->queue) {
			pmi_out_str(o, "Dispatch queue: ");
			pmi_text_put(o, t->queue);
		}
		pmi_out_ch(o, '\n');
	}
	pmi_out_str(o, "Thread ");
	pmi_out_u64(o, t->number);
	pmi_out_str(o, t->crashed ? " Crashed:\n" : t->attributed ? " Attributed:\n" : ":\n");
}

static void
write_threads(const pm_report *r, pm_out *o)
{
	for (uint32_t i = 0; i < r->thread_count; i++) {
		const pm_thread *t = &r->threads[i];
		write_thread_title(t, o);
		pmi_write_frames(r, t->frames, t->frame_count, o);
		pmi_out_ch(o, '\n');
	}
}

/* Apple prints a UUID here, and every parser of the format insists on one: the debug id. */
static void
write_debug_id(const pm_report *r, const pm_image *im, pm_out *o)
{
	uint8_t id[16];
	pm_image_debug_id(im, r->os, id);
	pmi_out_ch(o, '<');
	pmi_out_uuid(o, id, false);
	pmi_out_ch(o, '>');
}

/* LLDB's crashlog wants a path that starts with a slash: a pseudo-file ([vdso]) or an
 * unknown path gets one (docs/text-format.md; the reader removes it). */
static void
write_image_path(const pm_image *im, pm_out *o)
{
	const char *path = im->path ? im->path : "???";
	if (path[0] != '/')
		pmi_out_ch(o, '/');
	pmi_text_put(o, path);
}

static void
write_images(const pm_report *r, pm_out *o)
{
	pmi_out_str(o, "Binary Images:\n");
	for (uint32_t i = 0; i < r->image_count; i++) {
		const pm_image *im = &r->images[i];
		pmi_out_0x(o, im->start, 0);
		pmi_out_str(o, " - ");
		pmi_out_0x(o, im->start + im->size - 1, 0);
		pmi_out_ch(o, ' ');
		if (im->is_app)
			pmi_out_ch(o, '+');
		pmi_text_put(o, im->name ? im->name : "???");
		pmi_out_ch(o, ' ');
		pmi_text_put(o, im->arch ? im->arch : "unknown-arch");
		if (im->version) {
			pmi_out_str(o, " (");
			pmi_text_put(o, im->version);
			pmi_out_str(o, ") ");
		} else {
			pmi_out_str(o, "  ");
		}
		write_debug_id(r, im, o);
		pmi_out_ch(o, ' ');
		write_image_path(im, o);
		pmi_out_ch(o, '\n');
	}
	pmi_out_str(o, "\nEOF\n");
}

pm_err
pmi_write_text(const pm_report *r, pm_out *o)
{
	write_header(r, o);
	write_exception(r, o);
	write_sections(r, o);
	write_threads(r, o);
	pmi_write_thread_state(r, o);
	write_images(r, o);
	pmi_out_flush(o);
	if (o->failed)
		return PM_E_IO;
	return o->overflow ? PM_E_LIMIT : PM_OK;
}
