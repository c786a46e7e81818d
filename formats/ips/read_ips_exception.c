/*
 * read_ips_exception.c — .ips exception, termination and diagnostic members
 * (asi, asiBacktraces, vmregioninfo, ktriageinfo) -> pm_exception.
 */
#include "model.h"
#include "read_ips.h"

#include <string.h>

#include "decode.h"
#include "json.h"

/* A string array built in the arena; it grows by copying into a larger block. */
typedef struct strings {
	const char **v;
	uint32_t n, cap;
} strings;

static bool
push(pm_arena *a, strings *l, const char *s)
{
	if (!s || l->n == PM_IPS_MAX_LINES)
		return false;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		const char **v = pmi_arena_alloc(a, cap * sizeof *v, _Alignof(const char *));
		if (!v)
			return false;
		if (l->n)
			memcpy(v, l->v, l->n * sizeof *v);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = s;
	return true;
}

/* Each line of s; a trailing newline does not make an empty last line. */
static void
push_lines(pm_arena *a, strings *l, const char *s)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		if (!push(a, l, pmi_arena_strndup(a, s, n)))
			return;
		s += n + (nl != NULL);
	}
}

/* Every string of a JSON array (or a lone string). */
static void
push_strings(pm_arena *a, strings *l, const cJSON *arr)
{
	if (cJSON_IsString(arr)) {
		push(a, l, pmi_json_str(a, arr));
		return;
	}
	const cJSON *el;
	cJSON_ArrayForEach(el, arr) {
		if (cJSON_IsString(el) && !push(a, l, pmi_json_str(a, el)))
			return;
	}
}

static void
read_codes(const cJSON *ex, pm_exception *x)
{
	const cJSON *el;
	cJSON_ArrayForEach(el, pmi_json_get(ex, "rawCodes")) {
		if (x->raw_code_count == 4 || !pmi_json_u64(el, &x->raw_codes[x->raw_code_count]))
			break;
		x->raw_code_count++;
	}
	/* EXC_BAD_ACCESS carries the faulting address as its subcode (§13.1). */
	if (x->type && strcmp(x->type, "EXC_BAD_ACCESS") == 0 && x->raw_code_count >= 2) {
		x->has_address = true;
		x->address = x->raw_codes[1];
	}
}

static void
read_exception_object(const cJSON *ex, pm_report *r)
{
	pm_arena *a = r->arena;
	pm_exception *x = &r->exception;
	x->type = pmi_ips_str(a, ex, "type");
	x->signal_name = pmi_ips_str(a, ex, "signal");
	const pm_signal_info *si = x->signal_name ? pmi_signal_by_name(PM_OS_DARWIN, x->signal_name) : NULL;
	if (si)
		x->signal = si->number;
	x->subtype = pmi_ips_str(a, ex, "subtype");
	x->message = pmi_ips_str(a, ex, "message");
	x->codes = pmi_ips_str(a, ex, "codes");
	read_codes(ex, x);
}

/* Exception Note from the isSimulated / isNonFatal / isCorpse flags; the first that is set wins. */
static const char *
note(const cJSON *b)
{
	static const struct {
		const char *key, *text;
	} notes[] = {
		{ "isSimulated", "SIMULATED (this is NOT a crash)" },
		{ "isNonFatal", "NON-FATAL CONDITION (this is NOT a crash)" },
		{ "isCorpse", "EXC_CORPSE_NOTIFY" },
	};
	for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
		bool set = false;
		if (pmi_json_get_bool(b, notes[i].key, &set) && set)
			return notes[i].text;
	}
	return NULL;
}

/* The strings joined with newlines; NULL when there are none. */
static const char *
join_lines(pm_arena *a, const strings *l)
{
	size_t total = 0;
	for (uint32_t i = 0; i < l->n; i++)
		total += strlen(l->v[i]) + 1;
	char *out = total ? pmi_arena_alloc(a, total, 1) : NULL;
	if (!out)
		return NULL;
	char *o = out;
	for (uint32_t i = 0; i < l->n; i++) {
		size_t n = strlen(l->v[i]);
		memcpy(o, l->v[i], n);
		o += n;
		*o++ = '\n';
	}
	o[-1] = '\0';
	return out;
}

/* description, else the details array one per line. */
static const char *
term_description(pm_arena *a, const cJSON *t)
{
	const char *d = pmi_ips_str(a, t, "description");
	if (d)
		return d;
	strings l = { 0 };
	push_strings(a, &l, pmi_json_get(t, "details"));
	return join_lines(a, &l);
}

static void
read_termination(const cJSON *t, pm_report *r)
{
	pm_arena *a = r->arena;
	pm_exception *x = &r->exception;
	uint64_t u;
	int64_t pid;
	x->term_namespace = pmi_ips_str(a, t, "namespace");
	x->has_term_code = pmi_json_get_u64(t, "code", &x->term_code);
	x->term_indicator = pmi_ips_str(a, t, "indicator");
	strings l = { 0 };
	push_strings(a, &l, pmi_json_get(t, "reasons"));
	x->term_reasons = l.v;
	x->term_reason_count = l.n;
	x->term_description = term_description(a, t);
	if (pmi_json_get_u64(t, "flags", &u) && u <= UINT32_MAX)
		x->term_flags = (uint32_t)u;
	x->terminating_process = pmi_ips_str(a, t, "byProc");
	if (pmi_json_get_i64(t, "byPid", &pid))
		x->terminating_pid = pid;
}

/*
 * Application Specific Information: every string of every asi array, in
 * order, then each asiBacktraces entry under an "Application Specific
 * Backtrace N:" line — the lines Apple's translation prints.
 */
static void
read_asi(const cJSON *b, pm_report *r)
{
	pm_arena *a = r->arena;
	strings l = { 0 };
	const cJSON *asi = pmi_json_get(b, "asi");
	const cJSON *el;
	if (cJSON_IsObject(asi)) {
		cJSON_ArrayForEach(el, asi)
			push_strings(a, &l, el);
	} else {
		push_strings(a, &l, asi);
	}
	unsigned n = 0;
	cJSON_ArrayForEach(el, pmi_json_get(b, "asiBacktraces")) {
		if (!cJSON_IsString(el))
			continue;
		if (!push(a, &l, pmi_ips_printf(a, "Application Specific Backtrace %u:", n++)))
			break;
		push_lines(a, &l, el->valuestring);
	}
	r->exception.asi = l.v;
	r->exception.asi_count = l.n;
}

/* ktriageinfo without its closing newlines (the text shows them as blank lines). */
static const char *
kernel_triage(pm_arena *a, const cJSON *b)
{
	const cJSON *k = pmi_json_get(b, "ktriageinfo");
	if (!cJSON_IsString(k))
		return NULL;
	size_t n = strlen(k->valuestring);
	while (n > 0 && (k->valuestring[n - 1] == '\n' || k->valuestring[n - 1] == '\r'))
		n--;
	return n ? pmi_arena_strndup(a, k->valuestring, n) : NULL;
}

void
pmi_ips_exception(const cJSON *b, pm_report *r)
{
	pm_arena *a = r->arena;
	pm_exception *x = &r->exception;
	read_exception_object(pmi_json_get(b, "exception"), r);
	x->note = note(b);
	x->vm_region_info = pmi_ips_str(a, b, "vmregioninfo");
	if (!x->vm_region_info)
		x->vm_region_info = pmi_ips_str(a, b, "vmRegionInfo");
	read_termination(pmi_json_get(b, "termination"), r);
	read_asi(b, r);
	x->kernel_triage = kernel_triage(a, b);
}
