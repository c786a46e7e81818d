/*
 * upload_pass.c — one delivery pass over the pending reports.
 *
 * Per report: 2xx → mark sent (the only way out of pending); 408, 429, 5xx or
 * a broken transfer → retry after a backoff, up to max_attempts, then keep
 * it; other 4xx → quarantine with the server's reason.  The pass ends early,
 * leaving the rest pending, when no connection can be made at all, on TLS or
 * configuration errors, when the server's Retry-After is beyond
 * backoff_max_ms, when two reports in a row used all their attempts (the
 * server is unwell; one bad report must not hold up the others), when its
 * deadline (pass_timeout_ms) comes, and when pm_upload_stop asks.  No
 * request or wait outlasts the deadline: a server that accepts connections
 * and never answers costs at most pass_timeout_ms, not timeout_ms for every
 * attempt of every report.
 *
 * With a DSN the sessions of runs that ended go too (docs/sentry.md,
 * "Sessions"): a crashed run's in its crash's envelope, the others after the
 * reports, up to 100 to an envelope, with the same retries; one is marked
 * sent (moved to sessions/sent/) only once the server took its envelope, and
 * none is sent while Sentry limits the "session" category.  A crashed run's
 * session whose report stays pending waits for it.  Sessions without a
 * release (the app's version unknown), which Sentry would drop, are settled
 * without being sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sessions.h"
#include "store.h"
#include "upload.h"

/* Reports in a row that used all their attempts before the pass gives up. */
#define EXHAUSTED_IN_A_ROW_MAX 2

typedef enum verdict {
	V_SENT,
	V_REJECTED,
	V_EXHAUSTED,   /* retried max_attempts times */
	V_END,         /* end the pass; reply says why */
} verdict;

typedef struct pass {
	pm_store *store;
	const pm_upload_options *opt;
	const upload_stop *stop;
	upload_pass_ctl *ctl;
	upload_session session;
	pm_upload_result *res;
	uint32_t retry_after_ms;
	unsigned exhausted_in_a_row;
	struct timespec deadline;   /* CLOCK_MONOTONIC */
	bool out_of_time;
	bool sessions_limited;      /* Sentry asked for no sessions for a while */
	int64_t session_limit_ms;   /* for how long, the longest it said in this pass */
	char where[256];   /* the URL as logs show it */
} pass;

/* For logs: the status alone (a body is the server's text), else the transport error. */
static const char *
summary(const upload_reply *reply, char *buf, size_t cap)
{
	if (reply->status == 0)
		return reply->reason;
	snprintf(buf, cap, "HTTP %ld", reply->status);
	return buf;
}

/* Milliseconds before the pass's deadline, 0 once it has passed. */
static uint32_t
ms_left(const pass *p)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = ((int64_t)p->deadline.tv_sec - now.tv_sec) * 1000 + (p->deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms >= UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

/* Send body (a report, or `what` as logs name it) until it is sent, refused or out of tries. */
static verdict
attempt_all(pass *p, const char *what, const upload_body *body, upload_reply *reply)
{
	for (uint32_t attempt = 1;; attempt++) {
		uint32_t left = ms_left(p);
		if (left == 0) {
			p->out_of_time = true;
			return V_END;
		}
		curl_easy_setopt(p->session.curl, CURLOPT_TIMEOUT_MS,
		                 (long)(left < p->opt->timeout_ms ? left : p->opt->timeout_ms));
		pmi_upload_session_send(&p->session, body, reply);
		p->sessions_limited |= reply->session_limit_ms > 0;
		if (reply->session_limit_ms > p->session_limit_ms)
			p->session_limit_ms = reply->session_limit_ms;
		switch (reply->outcome) {
		case UPLOAD_SENT: return V_SENT;
		case UPLOAD_REJECTED: return V_REJECTED;
		case UPLOAD_OFFLINE:
		case UPLOAD_STOP: return V_END;
		case UPLOAD_RETRY: break;
		}
		if (attempt >= p->opt->max_attempts)
			return V_EXHAUSTED;
		int64_t asked = reply->retry_after_ms;
		if (asked > (int64_t)p->opt->backoff_max_ms) {
			/* Waiting that long here would stall the pass; staying away is what was asked. */
			p->retry_after_ms = (uint32_t)asked;
			return V_END;
		}
		uint32_t wait = asked >= 0 ? (uint32_t)asked : pmi_upload_backoff(p->opt, attempt);
		if (wait >= ms_left(p)) {
			p->out_of_time = true;
			return V_END;
		}
		char buf[32];
		pmi_upload_log("%s: %s (attempt %u of %u); next try in %u ms", what,
		           summary(reply, buf, sizeof buf), attempt, p->opt->max_attempts, wait);
		if (!pmi_upload_sleep(p->stop, wait))
			return V_END;
	}
}

/* Why the pass ends here, once, with how many reports stay behind. */
static void
log_end(const pass *p, const upload_reply *reply, size_t left)
{
	char buf[32];
	const char *why = summary(reply, buf, sizeof buf);
	if (pmi_upload_stopping(p->stop))
		pmi_upload_log("stopping: %zu report(s) stay pending", left);
	else if (p->out_of_time)
		pmi_upload_log("%s: %s; the pass's deadline (%u ms) came: %zu report(s) stay pending until a later pass",
		           p->where, why, p->opt->pass_timeout_ms, left);
	else if (p->retry_after_ms > 0)
		pmi_upload_log("%s: %s; asked to wait %u s: %zu report(s) stay pending until a later pass",
		           p->where, why, p->retry_after_ms / 1000, left);
	else if (reply->outcome == UPLOAD_OFFLINE)
		pmi_upload_log("cannot reach %s (%s): %zu report(s) stay pending", p->where, why, left);
	else if (reply->outcome == UPLOAD_STOP)
		pmi_upload_log("%s: %s: %zu report(s) stay pending", p->where, why, left);
	else
		pmi_upload_log("%s failed %u reports in a row: %zu report(s) stay pending", p->where,
		           p->exhausted_in_a_row, left);
}

/* Sessions waiting for delivery that Sentry would take: a release, not sent yet. */
static bool
sendable(const pm_session *ss)
{
	return ss && !ss->sent && ss->release[0];
}

/* The sessions of the run that report en ended, unless sessions are held back. */
static void
sessions_of(const pass *p, const char *id, pmi_session_set *set)
{
	set->n = 0;
	for (size_t i = 0; p->opt->dsn && !p->sessions_limited && i < pmi_store_sessions_waiting(p->store); i++) {
		const pm_session *ss = pm_store_session_get(p->store, i);
		if (sendable(ss) && strcmp(ss->report, id) == 0 && set->n < PMI_SENTRY_SESSIONS_MAX &&
		    pmi_store_session_waits(p->store, i))
			set->i[set->n++] = i;
	}
}

/* The server took the sessions of set. */
static void
sessions_sent(pass *p, const pmi_session_set *set)
{
	for (size_t k = 0; k < set->n; k++) {
		pm_err e = pmi_store_session_mark_sent(p->store, set->i[k]);
		if (e != PM_OK)
			pmi_upload_log("session %s: delivered, but it could not be marked (%s) and may be sent again",
			               pm_store_session_get(p->store, set->i[k])->sid, pm_strerror(e));
		p->res->sessions_sent++;
	}
}

/*
 * What report en says of its crash group (docs/sentry.md, "Crash groups"): the latest of
 * its group among the reports of this pass (list, n of them) also carries the crashes
 * storm control counted and no server was told of.
 */
static void
group_note(pass *p, const pm_store_entry *en, const pm_store_entry *list, size_t n, pmi_group_note *g)
{
	*g = (pmi_group_note){ .fingerprint = p->opt->fingerprint_signature };
	if (!en->signature[0])
		return;
	for (size_t i = 0; i < n; i++) {
		const pm_store_entry *o = &list[i];
		if (strcmp(o->signature, en->signature) != 0)
			continue;
		g->reports++;
		if (o->time > en->time || (o->time == en->time && strcmp(o->id, en->id) > 0))
			return; /* a later one of its group carries the count */
	}
	pm_group_record rec;
	if (!pmi_store_group_untold(p->store, en->signature, &rec))
		return;
	g->not_sent = rec.dropped - rec.told;
	g->first = rec.first;
	g->last = rec.last;
}

/* Deliver one report; false ends the pass (the caller keeps the reports after this one). */
static bool
deliver(pass *p, const pm_store_entry *en, const pm_store_entry *list, size_t n, size_t left)
{
	/* Delivered or quarantined by another uploader since the store listed it. */
	if (!pmi_store_in_pending(p->store, en->id))
		return true;
	upload_body body = { .category = PMI_SENTRY_EVENTS };
	char why[256];
	pmi_session_set with;
	sessions_of(p, en->id, &with);
	pmi_group_note group;
	group_note(p, en, list, n, &group);
	pm_err e = p->opt->dsn ? pmi_sentry_envelope_build(p->store, en, p->opt, &with, &group, &body.data, &body.len,
	                                                   why, sizeof why)
	                       : pmi_upload_form_build(&p->session, p->store, en, &group, &body.form, why, sizeof why);
	/* No server would take it: a later pass could not do better. */
	if (e == PM_E_LIMIT && pm_store_quarantine(p->store, en->id, why) == PM_OK) {
		pmi_upload_log("%s: quarantined: %s", en->id, why);
		p->res->quarantined++;
		return true;
	}
	if (e != PM_OK) {
		pmi_upload_log("%s: kept: %s", en->id, why);
		p->res->kept++;
		return true;
	}
	upload_reply reply = { .outcome = UPLOAD_STOP, .retry_after_ms = -1, .reason = "no attempt made" };
	verdict v = attempt_all(p, en->id, &body, &reply);
	curl_mime_free(body.form);
	free(body.data);
	char buf[32];
	switch (v) {
	case V_SENT:
		if ((e = pm_store_mark_sent(p->store, en->id)) != PM_OK)
			pmi_upload_log("%s: delivered, but it could not leave pending (%s) and may be sent again",
			           en->id, pm_strerror(e));
		else
			pmi_upload_log("%s: sent (HTTP %ld)", en->id, reply.status);
		sessions_sent(p, &with);
		pmi_store_group_told(p->store, en->signature, group.not_sent);
		p->res->sent++;
		p->exhausted_in_a_row = 0;
		return true;
	case V_REJECTED:
		p->exhausted_in_a_row = 0;
		if ((e = pm_store_quarantine(p->store, en->id, reply.reason)) != PM_OK) {
			pmi_upload_log("%s: rejected (HTTP %ld), but it could not be quarantined (%s): kept",
			           en->id, reply.status, pm_strerror(e));
			p->res->kept++;
			return true;
		}
		pmi_upload_log("%s: rejected (HTTP %ld): quarantined with the server's reason", en->id, reply.status);
		p->res->quarantined++;
		return true;
	case V_EXHAUSTED:
		pmi_upload_log("%s: %s after %u attempts: kept", en->id, summary(&reply, buf, sizeof buf),
		           p->opt->max_attempts);
		p->res->kept++;
		if (++p->exhausted_in_a_row < EXHAUSTED_IN_A_ROW_MAX)
			return true;
		break;
	case V_END:
		p->res->kept++;
		break;
	}
	log_end(p, &reply, left - (v == V_EXHAUSTED));
	return false;
}

/*
 * The entries to send, copied (marking and quarantining may change the
 * store's own lists): crash-loop reports first, whatever their state, then
 * the store's order.
 */
static pm_store_entry *
snapshot(const pm_store *s, size_t *count)
{
	static const pm_report_state states[] = { PM_STATE_PENDING, PM_STATE_PARTIAL };
	size_t n = pm_store_count(s, PM_STATE_PENDING) + pm_store_count(s, PM_STATE_PARTIAL);
	pm_store_entry *list = calloc(n ? n : 1, sizeof *list);
	if (!list)
		return NULL;
	*count = 0;
	for (int loop = 1; loop >= 0; loop--) {
		for (size_t k = 0; k < 2; k++) {
			for (size_t i = 0; i < pm_store_count(s, states[k]); i++) {
				const pm_store_entry *en = pm_store_get(s, states[k], i);
				if (en && en->crash_loop == loop && *count < n) {
					list[*count] = *en;
					list[(*count)++].reason = NULL;
				}
			}
		}
	}
	return list;
}

/* Whether a crashed run's report is still waiting: its session waits with it. */
static bool
report_pending(const pm_store *s, const pm_session *ss)
{
	for (int k = PM_STATE_PENDING; ss->report[0] && k <= PM_STATE_PARTIAL; k++)
		for (size_t i = 0; i < pm_store_count(s, (pm_report_state)k); i++)
			if (strcmp(pm_store_get(s, (pm_report_state)k, i)->id, ss->report) == 0)
				return true;
	return false;
}

/* Sessions Sentry would drop (no release): settled without a request. */
static void
settle_unversioned(pass *p)
{
	for (size_t i = 0; i < pmi_store_sessions_waiting(p->store); i++) {
		const pm_session *ss = pm_store_session_get(p->store, i);
		if (ss->sent || ss->release[0])
			continue;
		if (pmi_store_session_mark_sent(p->store, i) == PM_OK)
			p->res->sessions_unversioned++;
	}
	if (p->res->sessions_unversioned)
		pmi_upload_log("%u session(s) without a release (the app's version unknown: POSTMORTEM_APP_VERSION, "
		               "pm_config.app_version) not sent: Sentry drops them", p->res->sessions_unversioned);
}

/* One envelope of sessions; false ends the sessions' part of the pass. */
static bool
deliver_sessions(pass *p, const pmi_session_set *set)
{
	upload_body body = { .category = PMI_SENTRY_SESSIONS };
	if (pmi_sentry_sessions_envelope(p->store, set, p->opt, &body.data, &body.len) != PM_OK)
		return false;
	upload_reply reply = { .outcome = UPLOAD_STOP, .retry_after_ms = -1, .reason = "no attempt made" };
	char what[64], buf[32];
	snprintf(what, sizeof what, "%zu session(s)", set->n);
	verdict v = attempt_all(p, what, &body, &reply);
	free(body.data);
	if (v == V_SENT) {
		sessions_sent(p, set);
		pmi_upload_log("%s: sent (HTTP %ld)", what, reply.status);
		return true;
	}
	if (v == V_REJECTED) {
		/* Sentry takes every well-formed envelope: a refusal would be the same at every try. */
		pmi_upload_log("%s: rejected (%s): not sent again", what, reply.reason);
		for (size_t k = 0; k < set->n; k++)
			pmi_store_session_mark_sent(p->store, set->i[k]);
		return true;
	}
	pmi_upload_log("%s: %s: they stay waiting", what, summary(&reply, buf, sizeof buf));
	return false;
}

/* The sessions not sent with their reports, oldest first, an envelope at a time. */
static void
deliver_all_sessions(pass *p)
{
	pmi_session_set set = { .n = 0 };
	size_t waiting = pmi_store_sessions_waiting(p->store);
	for (size_t i = 0; i < waiting && !p->sessions_limited && !pmi_upload_stopping(p->stop); i++) {
		const pm_session *ss = pm_store_session_get(p->store, i);
		if (!sendable(ss) || report_pending(p->store, ss) || !pmi_store_session_waits(p->store, i))
			continue;
		set.i[set.n++] = i;
		if (set.n == PMI_SENTRY_SESSIONS_MAX) {
			if (!deliver_sessions(p, &set))
				return;
			set.n = 0;
		}
	}
	if (set.n > 0 && !p->sessions_limited && !pmi_upload_stopping(p->stop))
		deliver_sessions(p, &set);
	if (p->sessions_limited)
		pmi_upload_log("Sentry limits sessions for now: they stay waiting");
}

/* The server a pass delivers to, as logs and the hold name it. */
static void
endpoint_of(const pm_upload_options *opt, char *out, size_t cap)
{
	sentry_dsn dsn;
	out[0] = '\0';
	if (!opt->dsn)
		pmi_upload_url_display(opt->url, out, cap);
	else if (pmi_sentry_dsn_parse(opt->dsn, &dsn) == PM_OK)
		pmi_upload_url_display(dsn.envelope_url, out, cap);
}

/* Reports are held back while a server's Retry-After lasts: said once, all kept. */
static bool
events_held(const upload_hold *h, int64_t now, size_t count, pm_upload_result *res)
{
	int64_t left = h->events_until_ms - now;
	if (left <= 0 || count == 0)
		return left > 0;
	pmi_upload_log("%s asked to be left alone for %lld s more: %zu report(s) stay pending until then", h->endpoint,
	               (long long)(left + 999) / 1000, count);
	res->kept += (uint32_t)count;
	return true;
}

/* What this pass's server asked, for the passes after it (another server's hold is kept as it was). */
static void
hold_after(pass *p, const upload_hold *mine, int64_t now)
{
	bool asked = p->retry_after_ms > 0 || p->session_limit_ms > 0;
	if (!asked && strcmp(p->ctl->hold.endpoint, mine->endpoint) != 0)
		return;
	upload_hold *h = &p->ctl->hold;
	*h = *mine;
	if (p->retry_after_ms > 0)
		h->events_until_ms = now + p->retry_after_ms;
	if (p->session_limit_ms > 0 && now + p->session_limit_ms > h->sessions_until_ms)
		h->sessions_until_ms = now + p->session_limit_ms;
	if (h->events_until_ms <= now)
		h->events_until_ms = 0;
	if (h->sessions_until_ms <= now)
		h->sessions_until_ms = 0;
}

pm_err
pmi_upload_pass(pm_store *s, const pm_upload_options *options, pm_upload_result *res, upload_pass_ctl *ctl)
{
	pm_upload_result unused;
	upload_pass_ctl no_ctl = { 0 };
	pm_upload_options opt;
	if (!res)
		res = &unused;
	if (!ctl)
		ctl = &no_ctl;
	memset(res, 0, sizeof *res);
	ctl->cut_short = false;
	if (!s)
		return PM_E_INVAL;
	pm_err e = pmi_upload_options_resolve(options, &opt);
	if (e != PM_OK)
		return e;
	if (ctl->deadline_ms && ctl->deadline_ms < opt.pass_timeout_ms)
		opt.pass_timeout_ms = ctl->deadline_ms;
	size_t count = 0;
	pm_store_entry *list = snapshot(s, &count);
	if (!list)
		return PM_E_NOMEM;
	const upload_stop *stop = ctl->stop;
	pass p = { .store = s, .opt = &opt, .stop = stop, .ctl = ctl, .res = res,
	           .deadline = pmi_upload_deadline(CLOCK_MONOTONIC, opt.pass_timeout_ms) };
	/* What an earlier uploader was asked, when it delivered to this server. */
	upload_hold mine = { .events_until_ms = 0 };
	endpoint_of(&opt, mine.endpoint, sizeof mine.endpoint);
	if (strcmp(ctl->hold.endpoint, mine.endpoint) == 0)
		mine = ctl->hold;
	int64_t now = pmi_upload_now_ms();
	bool held = events_held(&mine, now, count, res);
	if (held)
		count = 0;
	p.sessions_limited = mine.sessions_until_ms > now;
	bool sessions = opt.dsn && pmi_store_sessions_waiting(s) > 0;
	if (sessions)
		settle_unversioned(&p);
	bool go_on = true;
	if ((count > 0 || (sessions && !p.sessions_limited)) &&
	    (e = pmi_upload_session_open(&p.session, &opt, stop)) == PM_OK) {
		pmi_upload_url_display(p.session.url, p.where, sizeof p.where);
		uint64_t total_bytes = 0, done_bytes = 0;
		for (size_t i = 0; i < count; i++)
			total_bytes += list[i].bytes;
		for (size_t i = 0; i < count; i++) {
			if (pmi_upload_stopping(stop)) {
				pmi_upload_log("stopping: %zu report(s) stay pending", count - i);
				res->kept += (uint32_t)(count - i);
				go_on = false;
				break;
			}
			go_on = deliver(&p, &list[i], list, count, count - i);
			done_bytes += list[i].bytes;
			if (opt.progress)
				opt.progress(opt.progress_ctx, i + 1, count, done_bytes, total_bytes);
			if (!go_on) {
				res->kept += (uint32_t)(count - i - 1);
				break;
			}
		}
		if (sessions && go_on && !pmi_upload_stopping(stop))
			deliver_all_sessions(&p);
		pmi_upload_session_close(&p.session);
	}
	for (size_t i = 0; opt.dsn && i < pmi_store_sessions_waiting(s); i++)
		res->sessions_kept += sendable(pm_store_session_get(s, i)) && pmi_store_session_waits(s, i);
	free(list);
	hold_after(&p, &mine, pmi_upload_now_ms());
	ctl->cut_short = held || !go_on || p.out_of_time || pmi_upload_stopping(stop);
	return e;
}
