/*
 * session_close.c — a run that is over, closed into its session
 * (docs/store.md, "Sessions"):
 *
 *   crashed   a crash report of its pid, written while it ran: its time after
 *             the run's start, its process's launch not after it (a later
 *             process with the same pid launched after this run ended);
 *             the session takes the report's release and time, so that the
 *             event and the session agree;
 *   exited    its record's end line says exit (any code: a non-zero code
 *             counts as an error, as Sentry's "errored");
 *   abnormal  anything else: killed (SIGKILL, the OOM killer: named when the
 *             kernel log or the memory cgroup's count tells), the machine
 *             restarted (a power loss), or ended where nothing saw it.
 *
 * Hang reports of the run count as errors, as Sentry counts error events.
 */
#include "sessions.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "store.h"

/* The report's times are seconds in its text; a second's slack either way. */
enum { SLACK_US = 1000000 };

static bool
of_run(const pm_sentry *e, const pmi_run *run, int64_t until_us)
{
	int64_t at = e->pub.time * 1000000;
	return e->pid == run->pid && e->pub.time != 0 && at + SLACK_US >= run->started_us &&
	       (until_us == 0 || at <= until_us + SLACK_US) &&
	       (e->launch == 0 || e->launch * 1000000 <= run->started_us + SLACK_US);
}

/* The crash report of the run, or NULL. */
static const pm_sentry *
crash_of(const pm_store *s, const pmi_run *run)
{
	const pm_sentry *best = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].kind == PM_KIND_CRASH && of_run(&s->v[i], run, 0) &&
		    (!best || s->v[i].pub.time < best->pub.time))
			best = &s->v[i];
	return best;
}

static uint32_t
hangs_of(const pm_store *s, const pmi_run *run, int64_t until_us)
{
	uint32_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].kind == PM_KIND_HANG && of_run(&s->v[i], run, until_us);
	return n;
}

/* FNV-1a over the run's identity: the same record always gives the same id. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
	return h;
}

static void
sid_of(const pmi_run *run, const pmi_system *sys, char out[37])
{
	char id[512];
	int n = snprintf(id, sizeof id, "%s|%lld|%lld|%s", sys->machine_id, (long long)run->pid,
	                 (long long)run->started_us, run->app_id);
	size_t len = n > 0 ? ((size_t)n < sizeof id ? (size_t)n : sizeof id - 1) : 0;
	uint64_t a = fnv(0xcbf29ce484222325ull, id, len), b = fnv(0x84222325cbf29ce4ull ^ a, id, len);
	unsigned char u[16];
	for (int i = 0; i < 8; i++) {
		u[i] = (unsigned char)(a >> (8 * i));
		u[8 + i] = (unsigned char)(b >> (8 * i));
	}
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40); /* a version 4 UUID, as Sentry's SDKs make */
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
	         u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Crashed: the report's own words for its release, time and signal. */
static void
close_crashed(pm_store *s, const pm_sentry *e, pm_session *out)
{
	out->status = PM_SESSION_CRASHED;
	out->ended_us = e->pub.time * 1000000;
	snprintf(out->report, sizeof out->report, "%s", e->pub.id);
	pm_report r;
	if (pm_store_load(s, e->pub.id, &r, NULL) == PM_OK) {
		const pm_header *h = &r.header;
		if (h->time.set)
			out->ended_us = h->time.sec * 1000000 + h->time.usec;
		if (h->identifier && *h->identifier)
			snprintf(out->app_id, sizeof out->app_id, "%s", h->identifier);
		if (h->version && *h->version)
			snprintf(out->app_version, sizeof out->app_version, "%s", h->version);
		/* A signal number as a wait status holds one (the report's own may be anything). */
		out->signal = r.exception.signal > 0 && r.exception.signal < 256 ? r.exception.signal : 0;
	}
	pm_report_free(&r);
	/* A report's time is cut to 100 us: a crash right after the start may read as before it. */
	if (out->ended_us < out->started_us)
		out->started_us = out->ended_us;
}

static void
close_abnormal(const pmi_run *run, pmi_system *sys, pm_session *out)
{
	out->status = PM_SESSION_ABNORMAL;
	if (run->end == PMI_RUN_SIGNAL) {
		out->signal = run->end_value;
		out->ended_us = run->end_us;
	}
	int64_t killed = pmi_system_oom_kill(sys, run);
	int64_t oom_now = run->oom_end >= 0 ? run->oom_end
	                  : run->oom_start >= 0 && run->oom_file[0] ? pmi_cgroup_oom_kills(run->oom_file)
	                                                             : -1;
	if (killed || (run->oom_start >= 0 && oom_now > run->oom_start)) {
		snprintf(out->mechanism, sizeof out->mechanism, "oom_kill");
		if (!out->ended_us)
			out->ended_us = killed;
	} else if (run->end == PMI_RUN_SIGNAL) {
		/* As `postmortem run` named it: SIGKILL, SIGTERM, ... */
		const char *abbrev = sigabbrev_np(run->end_value);
		snprintf(out->mechanism, sizeof out->mechanism, "SIG%s", abbrev ? abbrev : "?");
	} else if (run->started_us < sys->boot_real_us) {
		/* It began before this boot and never ended: the machine went down under it. */
		snprintf(out->mechanism, sizeof out->mechanism, "reboot");
	}
}

void
pmi_session_close(pm_store *s, const pmi_run *run, pmi_system *sys, pm_session *out)
{
	memset(out, 0, sizeof *out);
	sid_of(run, sys, out->sid);
	out->pid = run->pid;
	snprintf(out->app_id, sizeof out->app_id, "%s", run->app_id);
	snprintf(out->app_version, sizeof out->app_version, "%s", run->app_version);
	out->started_us = run->started_us;
	out->exit_code = -1;
	const pm_sentry *crash = crash_of(s, run);
	if (crash) {
		close_crashed(s, crash, out);
		out->errors = 1;
	} else if (run->end == PMI_RUN_EXIT) {
		out->status = PM_SESSION_EXITED;
		out->exit_code = run->end_value;
		out->ended_us = run->end_us;
		out->errors = run->end_value != 0;
	} else {
		close_abnormal(run, sys, out);
	}
	/* The clock set back while it ran (or a damaged record): no end before the start. */
	if (out->ended_us && out->ended_us < out->started_us)
		out->ended_us = out->started_us;
	out->errors += hangs_of(s, run, out->ended_us);
	if (!pmi_sentry_release(out->app_id, out->app_version, out->release, sizeof out->release))
		out->release[0] = '\0';
}
