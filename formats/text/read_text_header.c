/*
 * read_text_header.c — the identity, time and OS lines at the top of a report
 * (format reference §3), and the Date/Time grammar (§3.4).
 */
#include "model.h"
#include "read_text.h"

#include <stddef.h>
#include <string.h>

typedef enum field_kind {
	F_STR,   /* text as printed */
	F_PROC,  /* "name [pid]" */
	F_TIME,  /* a pm_time */
	F_OS,    /* text, and the OS family it names */
} field_kind;

static const struct field {
	const char *key;
	field_kind kind;
	size_t off;      /* of the field in pm_header */
	size_t pid_off;  /* F_PROC: of its pid */
} fields[] = {
	{ "Incident Identifier", F_STR, offsetof(pm_header, incident_id), 0 },
	{ "CrashReporter Key", F_STR, offsetof(pm_header, crash_reporter_key), 0 },
	/* macOS prints the same key (JSON crashReporterKey) under this name. */
	{ "Anonymous UUID", F_STR, offsetof(pm_header, crash_reporter_key), 0 },
	{ "Hardware Model", F_STR, offsetof(pm_header, hardware_model), 0 },
	{ "Process", F_PROC, offsetof(pm_header, process_name), offsetof(pm_header, pid) },
	{ "Path", F_STR, offsetof(pm_header, process_path), 0 },
	{ "Identifier", F_STR, offsetof(pm_header, identifier), 0 },
	{ "Version", F_STR, offsetof(pm_header, version), 0 },
	{ "Code Type", F_STR, offsetof(pm_header, code_type), 0 },
	{ "Role", F_STR, offsetof(pm_header, role), 0 },
	{ "Parent Process", F_PROC, offsetof(pm_header, parent_name), offsetof(pm_header, parent_pid) },
	{ "Responsible", F_STR, offsetof(pm_header, responsible), 0 },
	{ "Coalition", F_STR, offsetof(pm_header, coalition), 0 },
	{ "User ID", F_STR, offsetof(pm_header, user_id), 0 },
	{ "Date/Time", F_TIME, offsetof(pm_header, time), 0 },
	{ "Launch Time", F_TIME, offsetof(pm_header, launch_time), 0 },
	{ "OS Version", F_OS, offsetof(pm_header, os_version), 0 },
	{ "Release Type", F_STR, offsetof(pm_header, release_type), 0 },
	{ "Baseband Version", F_STR, offsetof(pm_header, baseband_version), 0 },
	{ "Report Version", F_STR, offsetof(pm_header, report_version), 0 },
};

/* Words that name one of Apple's systems in an OS Version line. */
static const char *const apple_systems[] = {
	"iPhone OS", "iOS", "iPadOS", "Mac OS", "macOS", "OS X", "tvOS", "watchOS",
	"Watch OS", "visionOS", "xrOS", "bridgeOS",
};

static pm_os
os_of(tx_span v)
{
	/* postmortem writes "(Linux <release>)" after the distribution name. */
	if (pmi_tx_find(v, "Linux") < v.n)
		return PM_OS_LINUX;
	for (size_t i = 0; i < sizeof apple_systems / sizeof apple_systems[0]; i++)
		if (pmi_tx_find(v, apple_systems[i]) < v.n)
			return PM_OS_DARWIN;
	return PM_OS_UNKNOWN;
}

static void
set_field(tx_parser *p, const struct field *f, tx_span v)
{
	pm_report *r = p->r;
	char *h = (char *)&r->header;
	const char **str = (const char **)(h + f->off);
	switch (f->kind) {
	case F_STR:
		*str = pmi_tx_copy(r->arena, v);
		break;
	case F_OS:
		*str = pmi_tx_copy(r->arena, v);
		r->os = (uint8_t)os_of(v);
		break;
	case F_PROC: {
		tx_span name;
		pmi_tx_name_pid(v, &name, (int64_t *)(h + f->pid_off));
		*str = pmi_tx_copy_known(r->arena, name);
		break;
	}
	case F_TIME:
		/* A date we cannot read is kept as text rather than lost. */
		if (!pmi_tx_time(v, (pm_time *)(h + f->off)))
			pmi_tx_header_extra(p, pmi_tx_span(f->key, strlen(f->key)), v);
		break;
	}
}

bool
pmi_tx_header_label(tx_parser *p, tx_span key, tx_span value)
{
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		if (pmi_tx_eq(key, fields[i].key)) {
			set_field(p, &fields[i], value);
			return true;
		}
	}
	return false;
}

void
pmi_tx_header_extra(tx_parser *p, tx_span key, tx_span value)
{
	pm_header *h = &p->r->header;
	if (h->extra_count >= TX_MAX_LINES)
		return;
	pm_kv *kv = pmi_tx_grow(p->r->arena, h->extra, h->extra_count, &p->extra_cap, sizeof *kv);
	if (!kv)
		return;
	h->extra = kv;
	kv[h->extra_count].key = pmi_tx_strndup(p->r->arena, key.p, key.n);
	kv[h->extra_count].value = pmi_tx_strndup(p->r->arena, value.p, value.n);
	h->extra_count++;
}

/* ---- Date/Time ------------------------------------------------------------ */

/* Exactly n decimal digits. */
static bool
take_fixed(tx_span *s, size_t n, unsigned *v)
{
	if (s->n < n)
		return false;
	unsigned x = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pmi_tx_is_digit(s->p[i]))
			return false;
		x = x * 10 + (unsigned)(s->p[i] - '0');
	}
	*v = x;
	*s = pmi_tx_tail(*s, n);
	return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's method). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* ".4969": microseconds and the number of digits shown (at most 6 kept). */
static bool
take_fraction(tx_span *s, uint32_t *usec, uint8_t *digits)
{
	*usec = 0;
	*digits = 0;
	if (!pmi_tx_skip(s, "."))
		return true;
	size_t n = 0;
	for (; n < s->n && pmi_tx_is_digit(s->p[n]); n++)
		if (n < 6)
			*usec = *usec * 10 + (uint32_t)(s->p[n] - '0');
	if (n == 0)
		return false;
	*digits = (uint8_t)(n < 6 ? n : 6);
	for (size_t i = *digits; i < 6; i++)
		*usec *= 10;
	*s = pmi_tx_tail(*s, n);
	return true;
}

/* "+0900", "-07:00", "Z" or nothing (UTC). */
static bool
take_zone(tx_span *s, int *tz_min)
{
	*tz_min = 0;
	if (s->n == 0 || pmi_tx_skip(s, "Z"))
		return true;
	int sign = s->p[0] == '+' ? 1 : s->p[0] == '-' ? -1 : 0;
	unsigned hh, mm;
	*s = pmi_tx_tail(*s, 1);
	if (!sign || !take_fixed(s, 2, &hh))
		return false;
	pmi_tx_skip(s, ":");
	if (!take_fixed(s, 2, &mm) || hh > 23 || mm > 59)
		return false;
	*tz_min = sign * (int)(hh * 60 + mm);
	return true;
}

bool
pmi_tx_time(tx_span s, pm_time *t)
{
	unsigned y, mo, d, h, mi, sec;
	uint32_t usec;
	uint8_t digits;
	int tz;
	s = pmi_tx_trim(s);
	if (!take_fixed(&s, 4, &y) || !pmi_tx_skip(&s, "-") || !take_fixed(&s, 2, &mo) ||
	    !pmi_tx_skip(&s, "-") || !take_fixed(&s, 2, &d) ||
	    !(pmi_tx_skip(&s, " ") || pmi_tx_skip(&s, "T")) ||
	    !take_fixed(&s, 2, &h) || !pmi_tx_skip(&s, ":") || !take_fixed(&s, 2, &mi) ||
	    !pmi_tx_skip(&s, ":") || !take_fixed(&s, 2, &sec) || !take_fraction(&s, &usec, &digits))
		return false;
	s = pmi_tx_ltrim(s);
	if (!take_zone(&s, &tz) || s.n != 0)
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return false;
	t->sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - (int64_t)tz * 60;
	t->usec = usec;
	t->tz_min = (int16_t)tz;
	t->digits = digits;
	t->set = true;
	return true;
}
