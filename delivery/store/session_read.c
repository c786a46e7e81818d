/*
 * session_read.c — a record of the runs file as the store reads it
 * (base/session_record.h).  The record is the app's own writing in a
 * directory only its user can write, but it may be cut short (a writer
 * killed in its write, a power loss) or damaged: whatever it holds, this
 * reads a whole start or refuses, and never reads past it.
 */
#include "sessions.h"

#include <stdlib.h>
#include <string.h>

/* The decimal number at *p (before end), advancing *p past it; false when there is none. */
static bool
number(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	if (s >= end || *s < '0' || *s > '9')
		return false;
	int64_t v = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	*p = s;
	return true;
}

static void
copy_value(char *out, size_t cap, const char *v, const char *end)
{
	size_t n = (size_t)(end - v) < cap - 1 ? (size_t)(end - v) : cap - 1;
	memcpy(out, v, n);
	out[n] = '\0';
}

/* "end exit <code> <us>" or "end signal <n> <us> [<oom kills>]" */
static void
read_end(pmi_run *r, const char *v, const char *end)
{
	pmi_run_end kind = strncmp(v, "exit ", 5) == 0 ? PMI_RUN_EXIT : strncmp(v, "signal ", 7) == 0 ? PMI_RUN_SIGNAL
	                                                                                              : PMI_RUN_RUNNING;
	int64_t code, us, oom;
	v += kind == PMI_RUN_EXIT ? 5 : 7;
	if (kind == PMI_RUN_RUNNING || !number(&v, end, &code) || code > 255 || v >= end || *v++ != ' ' ||
	    !number(&v, end, &us) || us > PMI_SESSION_US_MAX)
		return;
	r->end = kind;
	r->end_value = (int)code;
	r->end_us = us;
	if (kind == PMI_RUN_SIGNAL && v < end && *v == ' ' && (++v, number(&v, end, &oom)))
		r->oom_end = oom;
}

bool
pmi_run_parse(const char *rec, size_t n, pmi_run *out)
{
	memset(out, 0, sizeof *out);
	out->oom_start = out->oom_end = -1;
	const char *end = memchr(rec, '\0', n);
	end = end ? end : rec + n;
	size_t magic = strlen(PMI_SESSION_MAGIC);
	if ((size_t)(end - rec) < magic || memcmp(rec, PMI_SESSION_MAGIC, magic) != 0)
		return false;
	bool pid = false, started = false;
	/* Only whole lines: a line without its newline was cut short. */
	for (const char *line = rec + magic; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			break;
		const char *sp = memchr(line, ' ', (size_t)(nl - line));
		const char *v = sp ? sp + 1 : nl;
		size_t key = (size_t)((sp ? sp : nl) - line);
#define IS(k) (key == sizeof(k) - 1 && memcmp(line, k, key) == 0)
		if (IS("pid"))
			pid = number(&v, nl, &out->pid) && v == nl && out->pid > 0 && out->pid <= PMI_SESSION_PID_MAX;
		else if (IS("started"))
			started = number(&v, nl, &out->started_us) && v == nl && out->started_us <= PMI_SESSION_US_MAX;
		else if (IS("app_id"))
			copy_value(out->app_id, sizeof out->app_id, v, nl);
		else if (IS("app_version"))
			copy_value(out->app_version, sizeof out->app_version, v, nl);
		else if (IS("exe"))
			copy_value(out->exe, sizeof out->exe, v, nl);
		else if (IS("oom_kill") && number(&v, nl, &out->oom_start) && v < nl && *v == ' ')
			copy_value(out->oom_file, sizeof out->oom_file, v + 1, nl);
		else if (IS("end") && out->end == PMI_RUN_RUNNING)
			read_end(out, v, nl);
#undef IS
		line = nl + 1;
	}
	if (!out->app_version[0])
		strcpy(out->app_version, "???");
	return pid && started;
}
