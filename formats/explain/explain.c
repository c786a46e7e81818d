/*
 * explain.c — pm_explain: gather the facts of a diagnosis from a report and
 * render them as text (JSON in explain_json.c, the summary in explain_what.c).
 */
#include "explain.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
app_known(const pm_report *r)
{
	for (uint32_t i = 0; i < r->image_count; i++)
		if (r->images[i].is_app)
			return true;
	return r->header.process_path || r->header.process_name;
}

/* The first of n frames in the app's own code (language runtime passed), or -1. */
static int32_t
first_own(const pm_report *r, const pm_frame *v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		if (pmi_explain_frame_in_app(r, &v[i]) && !pmi_explain_frame_in_runtime(&v[i]))
			return (int32_t)i;
	return -1;
}

static void
gather_frames(pm_explain_facts *f)
{
	const pm_thread *t = pmi_explain_thread(f);
	f->first_app_frame = -1;
	f->thrown_at = first_own(f->r, f->r->last_exception_backtrace, f->r->leb_count);
	if (!t || t->frame_count == 0)
		return;
	f->top_frames = t->frame_count < PM_EXPLAIN_TOP_FRAMES ? t->frame_count : PM_EXPLAIN_TOP_FRAMES;
	f->app_known = app_known(f->r);
	f->crash_image_known = strcmp(pmi_explain_frame_image(f->r, &t->frames[0]), "???") != 0;
	f->crash_in_app = pmi_explain_frame_in_app(f->r, &t->frames[0]);
	int32_t own = first_own(f->r, t->frames, t->frame_count);
	f->first_app_frame = own > 0 ? own : -1;
}

/* ---- Signal, exception type, address ------------------------------------- */

static const pm_signal_info *
report_signal(const pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	const pm_signal_info *s = pmi_signal_by_name(f->os, e->signal_name);
	if (!s && e->signal != 0)
		s = pmi_signal_by_number(f->os, e->signal);
	/* Third-party reports print a bare "SIGSEGV" as the type. */
	return s ? s : pmi_signal_by_name(f->os, e->type);
}

static const char *
exception_type(const pm_explain_facts *f)
{
	const char *type = f->r->exception.type;
	if (type && !pmi_signal_by_name(f->os, type))
		return type;
	return f->sig ? f->sig->mach_type : NULL;
}

/* The number after " at 0x" in "KERN_INVALID_ADDRESS at 0x0000000000000010". */
static bool
address_in_text(const char *s, uint64_t *addr)
{
	const char *p = s ? strstr(s, " at 0x") : NULL;
	if (!p || !isxdigit((unsigned char)p[6]))
		return false;
	*addr = strtoull(p + 6, NULL, 16);
	return true;
}

static void
gather_address(pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	if (e->has_address) {
		f->has_address = true;
		f->address = e->address;
	} else if (pmi_explain_same(f->exc_type, "EXC_BAD_ACCESS")) {
		/* Apple's EXC_BAD_ACCESS subcode is the faulting address. */
		if (e->raw_code_count >= 2) {
			f->has_address = true;
			f->address = e->raw_codes[1];
		} else {
			f->has_address = address_in_text(e->subtype, &f->address) ||
			                 address_in_text(e->codes, &f->address);
		}
	}
}

/* ---- Termination --------------------------------------------------------- */

/* The first magic code written as 0x... in s ("code:0x8BADF00D", "0x000000008badf00d"). */
static const pm_magic_code *
magic_in_text(const char *s)
{
	for (const char *p = s ? strchr(s, '0') : NULL; p; p = strchr(p + 1, '0')) {
		if ((p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
			continue;
		const pm_magic_code *m = pmi_magic_code_lookup(strtoull(p + 2, NULL, 16));
		if (m)
			return m;
	}
	return NULL;
}

/* A magic code the report gives outside term_code: reasons, description, codes. */
static const pm_magic_code *
magic_elsewhere(const pm_exception *e)
{
	const pm_magic_code *m = NULL;
	for (uint32_t i = 0; i < e->term_reason_count && !m; i++)
		m = magic_in_text(e->term_reasons[i]);
	if (!m)
		m = magic_in_text(e->term_description);
	if (!m)
		m = magic_in_text(e->codes);
	for (uint32_t i = 0; i < e->raw_code_count && !m; i++)
		m = pmi_magic_code_lookup(e->raw_codes[i]);
	return m;
}

static void
gather_termination(pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	pm_explain_term *t = &f->term;
	t->ns = e->term_namespace;
	t->magic = e->has_term_code ? pmi_magic_code_lookup(e->term_code) : NULL;
	if (!t->magic)
		t->magic = magic_elsewhere(e);
	t->has_code = e->has_term_code || t->magic;
	t->code = t->magic ? t->magic->code : e->term_code;
	if (t->magic) {
		t->name = t->magic->nickname[0] ? t->magic->nickname : NULL;
		t->meaning = t->magic->meaning;
	} else if (pmi_explain_same(t->ns, "SIGNAL") && t->has_code) {
		const pm_signal_info *s = pmi_signal_by_number(f->os, (int)t->code);
		t->name = s ? s->name : NULL;
		t->meaning = s ? s->text : NULL;
	} else {
		const pm_code_info *ns = pmi_namespace_by_name(t->ns);
		t->meaning = ns ? ns->meaning : NULL;
	}
	f->has_term = t->ns || t->has_code;
}

static bool
gather(pm_explain_facts *f, const pm_report *r)
{
	*f = (pm_explain_facts){ .r = r, .thread = pm_report_crashed_thread(r) };
	f->os = r->os == PM_OS_LINUX ? PM_OS_LINUX : PM_OS_DARWIN;
	f->sig = report_signal(f);
	f->exc_type = exception_type(f);
	gather_address(f);
	gather_frames(f);
	gather_termination(f);
	pm_report_group(r, f->signature, f->title);
	return pmi_explain_what(f);
}

/* ---- Text ---------------------------------------------------------------- */

static void
text_asi(pm_sbuf *b, const pm_exception *e)
{
	if (e->asi_count == 0)
		return;
	pmi_sbuf_printf(b, "Application Specific Information:\n");
	for (uint32_t i = 0; i < e->asi_count; i++)
		pmi_sbuf_printf(b, "  %s\n", e->asi[i]);
}

/* What the app said about itself: annotations, then its last breadcrumbs. */
static void
text_context(pm_sbuf *b, const pm_report *r)
{
	if (r->annotation_count > 0)
		pmi_sbuf_printf(b, "Annotations:\n");
	for (uint32_t i = 0; i < r->annotation_count; i++)
		pmi_sbuf_printf(b, "  %s: %s\n", r->annotations[i].key, r->annotations[i].value);
	if (r->breadcrumb_count > 0)
		pmi_sbuf_printf(b, "Last breadcrumbs (%u in the report):\n", r->breadcrumb_count);
	for (uint32_t i = pmi_explain_first_crumb(r); i < r->breadcrumb_count; i++) {
		char when[48];
		pmi_explain_crumb_time(&r->breadcrumbs[i], when, sizeof when);
		pmi_sbuf_printf(b, "  %s  %s\n", when, r->breadcrumbs[i].message);
	}
}

static void
text_termination(pm_sbuf *b, const pm_explain_facts *f)
{
	const pm_explain_term *t = &f->term;
	if (!f->has_term)
		return;
	pmi_sbuf_printf(b, "Termination:");
	if (t->ns)
		pmi_sbuf_printf(b, " namespace %s%s", t->ns, t->has_code ? "," : "");
	if (t->has_code)
		pmi_sbuf_printf(b, " code 0x%llx", (unsigned long long)t->code);
	if (t->name)
		pmi_sbuf_printf(b, t->magic ? " (\"%s\")" : " (%s)", t->name);
	pmi_sbuf_printf(b, ".");
	if (t->meaning) {
		size_t n = strlen(t->meaning);
		pmi_sbuf_printf(b, " %s%s", t->meaning, n > 0 && t->meaning[n - 1] == '.' ? "" : ".");
	}
	if (t->magic)
		pmi_sbuf_printf(b, " Usual cause: %s", t->magic->cause);
	pmi_sbuf_printf(b, "\n");
}

static const char *
thread_label(const pm_report *r)
{
	switch (r->kind) {
	case PM_KIND_HANG: return "Hung thread";
	case PM_KIND_SNAPSHOT: return "Thread";
	default: return "Crashed thread";
	}
}

static void
text_thread(pm_sbuf *b, const pm_explain_facts *f)
{
	const pm_thread *t = pmi_explain_thread(f);
	if (!t) {
		pmi_sbuf_printf(b, "The report does not say which thread this is about.\n");
		return;
	}
	pmi_sbuf_printf(b, "%s: %" PRIu64, thread_label(f->r), t->number);
	if (t->id)
		pmi_sbuf_printf(b, " (id %llu)", (unsigned long long)t->id);
	if (t->name)
		pmi_sbuf_printf(b, ", named \"%s\"", t->name);
	if (t->queue)
		pmi_sbuf_printf(b, ", queue \"%s\"", t->queue);
	pmi_sbuf_printf(b, "\n");
	if (t->frame_count == 0)
		return;
	pmi_sbuf_printf(b, "Top frames:\n");
	for (uint32_t i = 0; i < f->top_frames; i++) {
		pmi_explain_frame_line(b, f->r, &t->frames[i], i);
		pmi_sbuf_printf(b, "\n");
	}
}

static void
text_image(pm_sbuf *b, const pm_explain_facts *f)
{
	const pm_thread *t = pmi_explain_thread(f);
	if (!t || t->frame_count == 0)
		return;
	const char *image = pmi_explain_frame_image(f->r, &t->frames[0]);
	if (f->crash_in_app && f->first_app_frame < 0) {
		pmi_sbuf_printf(b, "Frame 0 is in %s, your app's own code.\n", image);
		return;
	}
	if (f->crash_in_app)
		pmi_sbuf_printf(b, "Frame 0 is in %s, in the language runtime's abort path", image);
	else if (!f->crash_image_known)
		pmi_sbuf_printf(b, "Frame 0 is outside every known image");
	else
		pmi_sbuf_printf(b, "Frame 0 is in %s%s", image,
		               f->app_known ? ", a library, not your app" : "");
	if (!f->app_known) {
		pmi_sbuf_printf(b, "; the report does not say which image is the app.\n");
	} else if (f->first_app_frame < 0) {
		pmi_sbuf_printf(b, "; no frame of this thread is in your app.\n");
	} else {
		uint32_t app = (uint32_t)f->first_app_frame;
		pmi_sbuf_printf(b, "; first frame in your code:\n");
		pmi_explain_frame_line(b, f->r, &t->frames[app], app);
		pmi_sbuf_printf(b, "\n");
	}
}

static void
text_thrown(pm_sbuf *b, const pm_explain_facts *f)
{
	if (f->thrown_at < 0)
		return;
	pmi_sbuf_printf(b, "The exception was thrown at (Last Exception Backtrace):\n");
	pmi_explain_frame_line(b, f->r, &f->r->last_exception_backtrace[f->thrown_at], (uint32_t)f->thrown_at);
	pmi_sbuf_printf(b, "\n");
}

static char *
explain_text(const pm_explain_facts *f)
{
	pm_sbuf b = { 0 };
	pmi_sbuf_printf(&b, "%s\n", f->summary);
	pmi_sbuf_printf(&b, "Crash group: %s, %s\n", f->signature, f->title);
	text_asi(&b, &f->r->exception);
	text_context(&b, f->r);
	text_termination(&b, f);
	text_thread(&b, f);
	text_image(&b, f);
	text_thrown(&b, f);
	return pmi_sbuf_take(&b);
}

char *
pm_explain(const pm_report *r, bool json)
{
	if (!r)
		return NULL;
	pm_explain_facts f;
	if (!gather(&f, r))
		return NULL;
	char *out = json ? pmi_explain_json(&f) : explain_text(&f);
	free(f.summary);
	return out;
}
