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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	upload_session session;
	pm_upload_result *res;
	uint32_t retry_after_ms;
	unsigned exhausted_in_a_row;
	struct timespec deadline;   /* CLOCK_MONOTONIC */
	bool out_of_time;
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

static verdict
attempt_all(pass *p, const pm_store_entry *en, const upload_body *body, upload_reply *reply)
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
		pmi_upload_log("%s: %s (attempt %u of %u); next try in %u ms", en->id,
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

/* Deliver one report; false ends the pass (the caller keeps the reports after this one). */
static bool
deliver(pass *p, const pm_store_entry *en, size_t left)
{
	upload_body body = { 0 };
	char why[256];
	pm_err e = p->opt->dsn ? pmi_sentry_envelope_build(p->store, en, p->opt, &body.data, &body.len, why, sizeof why)
	                       : pmi_upload_form_build(&p->session, p->store, en, &body.form, why, sizeof why);
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
	verdict v = attempt_all(p, en, &body, &reply);
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

pm_err
pmi_upload_pass(pm_store *s, const pm_upload_options *options, pm_upload_result *res,
            const upload_stop *stop, uint32_t *retry_after_ms)
{
	pm_upload_result unused;
	pm_upload_options opt;
	if (!res)
		res = &unused;
	memset(res, 0, sizeof *res);
	if (retry_after_ms)
		*retry_after_ms = 0;
	if (!s)
		return PM_E_INVAL;
	pm_err e = pmi_upload_options_resolve(options, &opt);
	if (e != PM_OK)
		return e;
	size_t count = 0;
	pm_store_entry *list = snapshot(s, &count);
	if (!list)
		return PM_E_NOMEM;
	pass p = { .store = s, .opt = &opt, .stop = stop, .res = res,
	           .deadline = pmi_upload_deadline(CLOCK_MONOTONIC, opt.pass_timeout_ms) };
	if (count > 0 && (e = pmi_upload_session_open(&p.session, &opt, stop)) == PM_OK) {
		pmi_upload_url_display(p.session.url, p.where, sizeof p.where);
		uint64_t total_bytes = 0, done_bytes = 0;
		for (size_t i = 0; i < count; i++)
			total_bytes += list[i].bytes;
		for (size_t i = 0; i < count; i++) {
			if (pmi_upload_stopping(stop)) {
				pmi_upload_log("stopping: %zu report(s) stay pending", count - i);
				res->kept += (uint32_t)(count - i);
				break;
			}
			bool go_on = deliver(&p, &list[i], count - i);
			done_bytes += list[i].bytes;
			if (opt.progress)
				opt.progress(opt.progress_ctx, i + 1, count, done_bytes, total_bytes);
			if (!go_on) {
				res->kept += (uint32_t)(count - i - 1);
				break;
			}
		}
		pmi_upload_session_close(&p.session);
	}
	free(list);
	if (retry_after_ms)
		*retry_after_ms = p.retry_after_ms;
	return e;
}

pm_err
pm_upload_pending(pm_store *s, const pm_upload_options *opt, pm_upload_result *res)
{
	return pmi_upload_pass(s, opt, res, NULL, NULL);
}
