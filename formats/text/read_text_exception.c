/*
 * read_text_exception.c — the exception block (format reference §4) and the
 * diagnostic sections around it (§5): Application Specific Information,
 * Kernel Triage, VM Region Info.
 */
#include "read_text.h"

#include <stddef.h>
#include <string.h>

#include "decode.h"

typedef void label_fn(tx_parser *p, tx_span value);

static pm_exception *
exc(tx_parser *p)
{
	return &p->r->exception;
}

static bool
is_signal_name(tx_span s)
{
	if (s.n < 4 || !pmi_tx_starts(s, "SIG"))
		return false;
	for (size_t i = 3; i < s.n; i++)
		if (!((s.p[i] >= 'A' && s.p[i] <= 'Z') || pmi_tx_is_digit(s.p[i])))
			return false;
	return true;
}

/* "EXC_BAD_ACCESS (SIGSEGV)", a bare "SIGSEGV", or a raw form ("00000020", "0 (0)"). */
static void
exception_type(tx_parser *p, tx_span v)
{
	pm_exception *e = exc(p);
	pm_arena *a = p->r->arena;
	e->type = e->signal_name = NULL;
	if (is_signal_name(v)) {
		e->signal_name = pmi_tx_copy(a, v);
		return;
	}
	size_t open = pmi_tx_rfind_char(v, '(');
	if (open < v.n && v.p[v.n - 1] == ')') {
		tx_span type = pmi_tx_rtrim(pmi_tx_head(v, open));
		tx_span sig = pmi_tx_span(v.p + open + 1, v.n - open - 2);
		if (type.n && is_signal_name(sig)) {
			e->type = pmi_tx_copy(a, type);
			e->signal_name = pmi_tx_copy(a, sig);
			return;
		}
	}
	e->type = pmi_tx_copy(a, v);
}

static bool
is_code_name(tx_span s)
{
	if (!s.n || !((s.p[0] >= 'A' && s.p[0] <= 'Z') || (s.p[0] >= 'a' && s.p[0] <= 'z')))
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!((s.p[i] >= 'A' && s.p[i] <= 'Z') || (s.p[i] >= 'a' && s.p[i] <= 'z') ||
		      pmi_tx_is_digit(s.p[i]) || s.p[i] == '_'))
			return false;
	return true;
}

/*
 * "SEGV_MAPERR at 0x10", "KERN_INVALID_ADDRESS at 0x…", "SI_TKILL": a named
 * code, maybe with the faulting address.  Linux si_code names give si_code.
 */
static void
named_code(pm_exception *e, tx_span v)
{
	size_t at = pmi_tx_find(v, " at ");
	tx_span name = pmi_tx_trim(pmi_tx_head(v, at));
	if (!is_code_name(name))
		return;
	char buf[32];
	const pm_si_code_info *si = pmi_tx_cstr(name, buf, sizeof buf) ? pmi_si_code_by_name(buf) : NULL;
	if (si) {
		e->has_si_code = true;
		e->si_code = si->code;
	}
	tx_span rest = pmi_tx_ltrim(pmi_tx_tail(v, at + 4));
	uint64_t addr;
	if (at < v.n && pmi_tx_take_hex(&rest, &addr)) {
		e->has_address = true;
		e->address = addr;
	}
}

/* "0x0000000000000001, 0x0000000102afb3d0": the Mach code and subcode. */
static void
raw_codes(pm_exception *e, tx_span v)
{
	uint64_t codes[4];
	uint32_t n = 0;
	e->raw_code_count = 0;
	while (v.n && n < 4) {
		size_t comma = pmi_tx_find_char(v, ',');
		if (!pmi_tx_hex(pmi_tx_trim(pmi_tx_head(v, comma)), &codes[n]))
			return;
		n++;
		v = pmi_tx_tail(v, comma + 1);
	}
	memcpy(e->raw_codes, codes, n * sizeof codes[0]);
	e->raw_code_count = n;
}

/* "<code>[ <indicator>]", the code in hex ("0xb") or decimal ("6"). */
static bool
code_and_indicator(tx_parser *p, tx_span v)
{
	pm_exception *e = exc(p);
	uint64_t code;
	v = pmi_tx_ltrim(v);
	if (!pmi_tx_take_hex(&v, &code) && !pmi_tx_take_dec(&v, &code))
		return false;
	if (v.n && !pmi_tx_is_space(v.p[0]))
		return false;
	e->has_term_code = true;
	e->term_code = code;
	v = pmi_tx_trim(v);
	if (v.n)
		e->term_indicator = pmi_tx_copy(p->r->arena, v);
	return true;
}

/*
 * Three forms: "Namespace SIGNAL, Code 0xb" (classic), "Namespace SIGNAL, Code 6
 * Abort trap: 6" (translated macOS), and "FRONTBOARD 2343432205" (translated
 * iOS).  Reason lines may follow on the next lines in any of them.
 */
static void
termination_reason(tx_parser *p, tx_span v)
{
	pm_exception *e = exc(p);
	pm_arena *a = p->r->arena;
	if (!v.n)
		return;
	pmi_tx_begin_section(p, TX_REASONS);
	if (pmi_tx_skip(&v, "Namespace ")) {
		size_t comma = pmi_tx_find_char(v, ',');
		e->term_namespace = pmi_tx_copy(a, pmi_tx_trim(pmi_tx_head(v, comma)));
		v = pmi_tx_ltrim(pmi_tx_tail(v, comma + 1));
		if (pmi_tx_skip(&v, "Code "))
			code_and_indicator(p, v);
		return;
	}
	tx_span ns = pmi_tx_token(&v);
	pmi_tx_cut_suffix(&ns, ",");
	e->term_namespace = pmi_tx_copy(a, ns);
	/* watchOS writes the reason on the label line: "CAROUSEL, WatchConnectivity …". */
	v = pmi_tx_trim(v);
	if (v.n && !code_and_indicator(p, v))
		pmi_tx_push_line(a, &e->term_reasons, &e->term_reason_count, &p->reason_cap, v);
}

static void
terminating_process(tx_parser *p, tx_span v)
{
	tx_span name;
	pmi_tx_name_pid(v, &name, &exc(p)->terminating_pid);
	exc(p)->terminating_process = pmi_tx_copy_known(p->r->arena, name);
}

/* "0", or macOS "0  Dispatch queue: …": the thread's number in the report. */
static void
triggered_thread(tx_parser *p, tx_span v)
{
	uint64_t n;
	if (pmi_tx_take_dec(&v, &n) && n <= INT32_MAX)
		exc(p)->triggered_thread = (int32_t)n;
}

static void
highlighted_thread(tx_parser *p, tx_span v)
{
	triggered_thread(p, v);
	exc(p)->highlighted = exc(p)->triggered_thread >= 0;
}

static void
asi(tx_parser *p, tx_span v)
{
	pm_exception *e = exc(p);
	pmi_tx_begin_section(p, TX_ASI);
	if (v.n)
		pmi_tx_push_line(p->r->arena, &e->asi, &e->asi_count, &p->asi_cap, v);
}

static void
kernel_triage(tx_parser *p, tx_span v)
{
	pmi_tx_begin_block(p, &exc(p)->kernel_triage, v);
}

static void
vm_region_info(tx_parser *p, tx_span v)
{
	pmi_tx_begin_block(p, &exc(p)->vm_region_info, v);
}

static const struct label {
	const char *key;
	label_fn *fn;   /* NULL: plain text stored at `off` */
	size_t off;
} labels[] = {
	{ "Exception Type", exception_type, 0 },
	{ "Exception Subtype", NULL, offsetof(pm_exception, subtype) },
	{ "Exception Message", NULL, offsetof(pm_exception, message) },
	{ "Exception Codes", NULL, offsetof(pm_exception, codes) },
	{ "Exception Note", NULL, offsetof(pm_exception, note) },
	{ "VM Region Info", vm_region_info, 0 },
	{ "Termination Signal", NULL, offsetof(pm_exception, term_indicator) },
	{ "Termination Reason", termination_reason, 0 },
	{ "Termination Description", NULL, offsetof(pm_exception, term_description) },
	{ "Terminating Process", terminating_process, 0 },
	{ "Triggered by Thread", triggered_thread, 0 },
	{ "Crashed Thread", triggered_thread, 0 },      /* macOS, older iOS, third parties */
	{ "Highlighted Thread", highlighted_thread, 0 }, /* iOS <= 6 SpringBoard kills */
	{ "Application Specific Information", asi, 0 },
	{ "Kernel Triage", kernel_triage, 0 },
};

static const struct label *
find_label(tx_span key)
{
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (pmi_tx_eq(key, labels[i].key))
			return &labels[i];
	return NULL;
}

bool
pmi_tx_is_exception_key(tx_span key)
{
	return find_label(key) != NULL;
}

bool
pmi_tx_exception_label(tx_parser *p, tx_span line, tx_span key, tx_span value)
{
	const struct label *l = find_label(key);
	bool near = !l && pmi_tx_starts(key, "VM Regions Near ");
	if (!l && !near)
		return false;
	pmi_tx_enter_phase(p, TX_PHASE_EXCEPTION);
	if (near) /* classic macOS: the title carries the address, so keep it too */
		pmi_tx_begin_block(p, &exc(p)->vm_region_info, line);
	else if (l->fn)
		l->fn(p, value);
	else
		*(const char **)((char *)exc(p) + l->off) = pmi_tx_copy(p->r->arena, value);
	return true;
}

static tx_span
span_of(const char *s)
{
	return pmi_tx_span(s, s ? strlen(s) : 0);
}

/* Facts decoded from the final texts, so a repeated line cannot leave stale ones. */
void
pmi_tx_finish_exception(pm_report *r)
{
	pm_exception *e = &r->exception;
	raw_codes(e, span_of(e->codes));
	named_code(e, span_of(e->subtype));
	named_code(e, span_of(e->codes));
	const pm_signal_info *si = e->signal_name ? pmi_signal_by_name(r->os, e->signal_name) : NULL;
	if (si)
		e->signal = si->number;
	else if (e->term_namespace && strcmp(e->term_namespace, "SIGNAL") == 0 &&
	         e->has_term_code && e->term_code <= INT32_MAX)
		e->signal = (int32_t)e->term_code;
}
