/*
 * read_text.c — pm_read_text: reader of Apple-style .crash text (classic iOS
 * and macOS, Console/Xcode translations, PLCrashReporter/KSCrash look-alikes
 * and postmortem's own Linux layout).
 *
 * One pass over the lines.  A line first goes to the section it may continue
 * (frames after a thread header, rows after a thread-state title, lines after
 * Application Specific Information, …).  A line the section does not take ends
 * it and is read on its own: a "Thread N" line, a known label, an unknown
 * label (a header extra), or free text (Application Specific Information).
 * Binary Images come last, so frames find their images once all is read.
 */
#include "read_text.h"
#include "model.h"

#include <string.h>

/* Longest label we take for a "Label: value" line ("System Integrity Protection"). */
enum { LABEL_MAX = 48 };

/* ---- section titles without a field of their own ------------------------ */

typedef void title_fn(tx_parser *p, tx_span value);

static void
begin_leb(tx_parser *p, tx_span value)
{
	pmi_tx_enter_phase(p, TX_PHASE_BODY);
	pmi_tx_begin_section(p, TX_LEB);
	pmi_tx_pc_list(p, value);
}

static void
begin_images(tx_parser *p, tx_span value)
{
	(void)value;
	pmi_tx_enter_phase(p, TX_PHASE_BODY);
	pmi_tx_begin_section(p, TX_IMAGES);
}

static void
begin_skip(tx_parser *p, tx_span value)
{
	(void)value;
	pmi_tx_begin_section(p, TX_SKIP);
}

static void
begin_tail(tx_parser *p, tx_span value)
{
	(void)value;
	pmi_tx_begin_section(p, TX_TAIL);
}

static const struct title {
	const char *key;
	bool prefix;        /* the key only starts with it ("… Backtrace 1") */
	title_fn *begin;
} titles[] = {
	{ "Last Exception Backtrace", false, begin_leb },
	{ "Annotations", false, pmi_tx_begin_annotations },
	{ "Breadcrumbs", false, pmi_tx_begin_crumbs },
	{ "Binary Images", false, begin_images },
	{ "Application Specific Backtrace", true, begin_skip }, /* macOS; not modelled */
	{ "Filtered syslog", false, begin_skip },
	{ "Extra Information", false, begin_tail },             /* KSCrash's own appendix */
	{ "External Modification Summary", false, begin_tail }, /* macOS trailers */
	{ "VM Region Summary", false, begin_tail },
	{ "System Profile", false, begin_tail },
};

static const struct title *
find_title(tx_span key)
{
	for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
		if (titles[i].prefix ? pmi_tx_starts(key, titles[i].key) : pmi_tx_eq(key, titles[i].key))
			return &titles[i];
	return NULL;
}

/* ---- line classes --------------------------------------------------------- */

static bool
is_label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || pmi_tx_is_digit(c) ||
	       c == ' ' || c == '/' || c == '_' || c == '.' || c == '-' || c == '(' || c == ')';
}

/* "Label: value": a capitalised label, a colon, then a blank or the end of the line. */
static bool
split_label(tx_span t, tx_span *key, tx_span *value)
{
	if (t.n == 0 || t.p[0] < 'A' || t.p[0] > 'Z')
		return false;
	size_t colon = pmi_tx_find_char(pmi_tx_head(t, LABEL_MAX), ':');
	if (colon >= t.n || colon == LABEL_MAX)
		return false;
	for (size_t i = 0; i < colon; i++)
		if (!is_label_char(t.p[i]))
			return false;
	if (colon + 1 < t.n && !pmi_tx_is_space(t.p[colon + 1]))
		return false;
	*key = pmi_tx_rtrim(pmi_tx_head(t, colon));
	*value = pmi_tx_trim(pmi_tx_tail(t, colon + 1));
	return true;
}

static bool
is_thread_start(tx_span t)
{
	return pmi_tx_skip(&t, "Thread ") && t.n && pmi_tx_is_digit(t.p[0]);
}

/* Lines that open a new part of the report even without an empty line before. */
static bool
starts_part(tx_span t)
{
	tx_span key, value;
	return is_thread_start(t) ||
	       (split_label(t, &key, &value) && (find_title(key) || pmi_tx_eq(key, "Kernel Triage")));
}

/* The end of a free-form run inside the exception block (VM Region Info, reasons). */
static bool
ends_run(tx_span t)
{
	tx_span key, value;
	return !t.n || starts_part(t) || (split_label(t, &key, &value) && pmi_tx_is_exception_key(key));
}

/* Console's "Translated Report (Full Report Below)" banner around the text. */
static bool
is_banner(tx_span t)
{
	if (pmi_tx_eq(t, "Translated Report (Full Report Below)"))
		return true;
	size_t i = 0;
	while (i < t.n && t.p[i] == '-')
		i++;
	return t.n >= 3 && i == t.n;
}

static void
note_unknown(tx_parser *p)
{
	if (!p->first_unknown)
		p->first_unknown = p->line;
}

/* ---- the line loop -------------------------------------------------------- */

/* Offer a line to the open section; true when it took the line. */
static bool
continue_section(tx_parser *p, tx_span raw, tx_span t)
{
	pm_exception *e = &p->r->exception;
	switch (p->section) {
	case TX_ASI:
		if (!t.n || starts_part(t))
			return false;
		pmi_tx_push_line(p->r->arena, &e->asi, &e->asi_count, &p->asi_cap, raw);
		return true;
	case TX_BLOCK:
		if (ends_run(t))
			return false;
		pmi_tx_extend_block(p, raw);
		return true;
	case TX_REASONS:
		if (ends_run(t))
			return false;
		pmi_tx_push_line(p->r->arena, &e->term_reasons, &e->term_reason_count,
		                &p->reason_cap, raw);
		return true;
	case TX_ANNOTATIONS:
		return pmi_tx_annotation_line(p, raw);
	case TX_CRUMBS:
		return pmi_tx_crumb_line(p, raw);
	case TX_LEB:
		if (pmi_tx_pc_list(p, t))
			return true;
		/* fall through */
	case TX_THREAD:
		/* A line that only looks like a frame (an address past 64 bits, …) is dropped. */
		return pmi_tx_frame_line(p, raw) || (t.n && pmi_tx_is_digit(t.p[0]));
	case TX_REGS:
		return (raw.n && !t.n) || pmi_tx_regs_line(p, raw);
	case TX_IMAGES:
		if (!t.n && p->r->image_count == 0)
			return true;
		if (!pmi_tx_image_line(p, t) && !pmi_tx_starts(t, "0x"))
			pmi_tx_begin_section(p, TX_TAIL);
		return true;
	case TX_SKIP:
		return t.n != 0;
	case TX_NONE:
	case TX_TAIL:
		break;
	}
	return false;
}

/* A line no section took. */
static void
read_alone(tx_parser *p, tx_span t)
{
	if (!t.n || is_banner(t))
		return;
	if (pmi_tx_thread_line(p, t)) {
		p->recognized = true;
		return;
	}
	tx_span key, value;
	if (split_label(t, &key, &value)) {
		const struct title *title = find_title(key);
		if (title)
			title->begin(p, value);
		if (title || pmi_tx_header_label(p, key, value) ||
		    pmi_tx_exception_label(p, t, key, value)) {
			p->recognized = true;
			return;
		}
		note_unknown(p);
		if (p->phase < TX_PHASE_BODY)
			pmi_tx_header_extra(p, key, value);
		return;
	}
	note_unknown(p);
	/* KSCrash writes reasons such as "Application main thread deadlocked" unlabeled. */
	if (p->phase < TX_PHASE_BODY) {
		pm_exception *e = &p->r->exception;
		pmi_tx_push_line(p->r->arena, &e->asi, &e->asi_count, &p->asi_cap, t);
	}
}

static void
read_line(tx_parser *p, tx_span raw)
{
	tx_span t = pmi_tx_trim(raw);
	if (pmi_tx_eq(t, "EOF") || pmi_tx_eq(t, "Full Report")) {
		if (pmi_tx_eq(t, "EOF"))
			p->r->complete = true;
		p->done = true;
		return;
	}
	/* The .ips metadata object on line 1 (bug_type 109): the .ips reader uses it. */
	if (p->section == TX_TAIL || (p->line == 1 && t.n && t.p[0] == '{'))
		return;
	if (continue_section(p, raw, t))
		return;
	pmi_tx_end_section(p);
	read_alone(p, t);
}

static void
mark_captured(pm_report *r)
{
	for (uint32_t i = 0; i < r->thread_count; i++)
		r->threads[i].captured = r->threads[i].frame_count > 0 || r->threads[i].regs;
}

static pm_err
finish(tx_parser *p, pm_read_error *err)
{
	pm_report *r = p->r;
	pmi_tx_end_section(p);
	if (!p->recognized) {
		if (!p->first_unknown)
			return pmi_read_fail(err, 0, "not a crash report: the input holds no report lines");
		return pmi_read_fail(err, p->first_unknown,
		                    "not a crash report: no header, exception, thread or image "
		                    "line anywhere; this is the first line not understood");
	}
	pmi_tx_finish_exception(r);
	mark_captured(r);
	if (!pmi_tx_resolve_frames(r) || pmi_arena_exhausted(r->arena)) {
		pmi_read_fail(err, 0, "out of memory while reading the report");
		return PM_E_NOMEM;
	}
	return PM_OK;
}

pm_err
pm_read_text(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	if (err) {
		err->line = 0;
		err->message[0] = '\0';
	}
	pm_err checked = pmi_read_check_input(data, len, r, err);
	if (checked != PM_OK)
		return checked;
	tx_parser p = { .r = r };
	const char *s = len ? data : "", *end = s + len;
	if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (s < end && !p.done) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		tx_span line = pmi_tx_span(s, (size_t)(e - s));
		while (line.n && line.p[line.n - 1] == '\r')
			line.n--;
		p.line++;
		read_line(&p, line);
		s = nl ? nl + 1 : end;
	}
	return finish(&p, err);
}
