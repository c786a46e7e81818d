/*
 * upload_session.c — one libcurl handle per pass: options, one request, and
 * what its reply means.
 *
 * The handle is reused for every report of a pass so the connection (and
 * its TLS session) is kept.  Redirects are not followed: a redirect could
 * lead from https to plain http, around pmi_upload_url_check.  Loopback URLs
 * ignore proxies from the environment: a proxy cannot reach our loopback,
 * and plain HTTP to loopback would carry the report in clear to the proxy.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "upload.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static bool curl_ready;

static void
init_curl(void)
{
	curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

bool
pmi_upload_curl_init(void)
{
	pthread_once(&curl_once, init_curl);
	return curl_ready;
}

/* Keep the last status line: after a "100 Continue" comes the real one. */
static size_t
on_header(char *p, size_t size, size_t n, void *ctx)
{
	upload_session *u = ctx;
	size_t len = size * n;
	if (len > 5 && memcmp(p, "HTTP/", 5) == 0) {
		while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == '\n'))
			len--;
		if (len >= sizeof u->status_line)
			len = sizeof u->status_line - 1;
		memcpy(u->status_line, p, len);
		u->status_line[len] = '\0';
		u->excerpt_len = 0;
		u->excerpt_cut = false;
	}
	return size * n;
}

/* The body matters only as a rejection's reason: keep its start, drop the rest. */
static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	upload_session *u = ctx;
	size_t len = size * n, room = UPLOAD_EXCERPT_MAX - u->excerpt_len;
	size_t k = len < room ? len : room;
	memcpy(u->excerpt + u->excerpt_len, p, k);
	u->excerpt_len += k;
	u->excerpt_cut |= k < len;
	return len;
}

static int
on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	const upload_session *u = ctx;
	return pmi_upload_stopping(u->stop);
}

pm_err
pmi_upload_session_open(upload_session *u, const pm_upload_options *opt, const upload_stop *stop)
{
	memset(u, 0, sizeof *u);
	u->opt = opt;
	u->stop = stop;
	if (!pmi_upload_curl_init() || !(u->curl = curl_easy_init()))
		return PM_E_NOMEM;
	/* Without "Expect:" curl would wait for a 100 Continue on large bodies:
	 * a round trip, or a whole second when the server ignores it. */
	bool ok = (u->headers = curl_slist_append(NULL, "Expect:")) != NULL;
	u->url = opt->url;
	if (ok && opt->dsn) {
		if (pmi_sentry_dsn_parse(opt->dsn, &u->dsn) != PM_OK) {
			pmi_upload_session_close(u);
			return PM_E_INVAL;
		}
		u->url = u->dsn.envelope_url;
		ok = (u->headers = curl_slist_append(u->headers, u->dsn.auth)) != NULL &&
		     (u->headers = curl_slist_append(u->headers, "Content-Type: application/x-sentry-envelope")) != NULL;
	}
	for (size_t i = 0; ok && i < opt->header_count; i++) {
		struct curl_slist *h = curl_slist_append(u->headers, opt->headers[i]);
		if ((ok = h != NULL))
			u->headers = h;
	}
	if (!ok) {
		pmi_upload_session_close(u);
		return PM_E_NOMEM;
	}
	CURL *c = u->curl;
	ok = curl_easy_setopt(c, CURLOPT_URL, u->url) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
	     && (!pmi_upload_url_loopback(u->url) || curl_easy_setopt(c, CURLOPT_NOPROXY, "*") == CURLE_OK)
	     && curl_easy_setopt(c, CURLOPT_HTTPHEADER, u->headers) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_USERAGENT, "postmortem") == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)opt->connect_timeout_ms) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)opt->timeout_ms) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, opt->insecure_tls ? 0L : 1L) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, opt->insecure_tls ? 0L : 2L) == CURLE_OK
	     && (!opt->ca_file || curl_easy_setopt(c, CURLOPT_CAINFO, opt->ca_file) == CURLE_OK)
	     && curl_easy_setopt(c, CURLOPT_ERRORBUFFER, u->error) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_HEADERDATA, u) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_WRITEDATA, u) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_XFERINFODATA, u) == CURLE_OK
	     && curl_easy_setopt(c, CURLOPT_NOPROGRESS, stop ? 0L : 1L) == CURLE_OK;
	if (!ok) {
		pmi_upload_log("libcurl refused an option (a version older than 7.85?)");
		pmi_upload_session_close(u);
		return PM_E_UNSUPPORTED;
	}
	if (opt->insecure_tls)
		pmi_upload_log("TLS certificate verification is off (insecure_tls)");
	return PM_OK;
}

void
pmi_upload_session_close(upload_session *u)
{
	curl_easy_cleanup(u->curl);
	curl_slist_free_all(u->headers);
	u->curl = NULL;
	u->headers = NULL;
}

static upload_outcome
transport_outcome(upload_session *u, CURLcode rc)
{
	curl_off_t connected = 0;
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		return UPLOAD_OFFLINE;
	case CURLE_OPERATION_TIMEDOUT:
		/* A timeout before any connection is a host we cannot reach, not a slow one. */
		curl_easy_getinfo(u->curl, CURLINFO_CONNECT_TIME_T, &connected);
		return connected == 0 ? UPLOAD_OFFLINE : UPLOAD_RETRY;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return UPLOAD_RETRY;
	default:
		/* Certificate problems, bad options, an abort: every report would fare the same. */
		return UPLOAD_STOP;
	}
}

static upload_outcome
status_outcome(long status)
{
	if (status >= 200 && status <= 299)
		return UPLOAD_SENT;
	if (status == 408 || status == 429 || (status >= 500 && status <= 599))
		return UPLOAD_RETRY;
	if (status >= 400 && status <= 499)
		return UPLOAD_REJECTED;
	return UPLOAD_STOP;
}

/* Control bytes become spaces; a UTF-8 sequence cut at the end is dropped. */
static size_t
clean_excerpt(char *s, size_t n, bool cut)
{
	if (cut) {
		size_t k = n;
		while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
			k--;
		if (k > 0 && (unsigned char)s[k - 1] >= 0xC0)
			n = k - 1;
	}
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		char c = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
		if (c != ' ' || (w > 0 && s[w - 1] != ' '))
			s[w++] = c;
	}
	while (w > 0 && s[w - 1] == ' ')
		w--;
	s[w] = '\0';
	return w;
}

static void
describe(upload_session *u, upload_reply *reply)
{
	size_t n = clean_excerpt(u->excerpt, u->excerpt_len, u->excerpt_cut);
	if (u->status_line[0])
		snprintf(reply->reason, sizeof reply->reason, "%s", u->status_line);
	else
		snprintf(reply->reason, sizeof reply->reason, "HTTP %ld", reply->status);
	if (n > 0) {
		size_t used = strlen(reply->reason);
		snprintf(reply->reason + used, sizeof reply->reason - used, ": %s%s",
		         u->excerpt, u->excerpt_cut ? "..." : "");
	}
}

/* Sentry's X-Sentry-Rate-Limits, when it limits what the body carries, says more than Retry-After. */
static void
read_retry_after(upload_session *u, const upload_body *body, upload_reply *reply)
{
	struct curl_header *h;
	if (u->opt->dsn && curl_easy_header(u->curl, "X-Sentry-Rate-Limits", 0, CURLH_HEADER, -1, &h) == CURLHE_OK &&
	    (reply->retry_after_ms = pmi_sentry_rate_limit_ms(h->value, body->category)) >= 0)
		return;
	if (curl_easy_header(u->curl, "Retry-After", 0, CURLH_HEADER, -1, &h) == CURLHE_OK)
		reply->retry_after_ms = pmi_upload_retry_after_ms(h->value, (int64_t)time(NULL));
}

/* Relay names its limits on any reply, 2xx too: a limit on sessions holds the next ones back. */
static void
read_session_limit(upload_session *u, upload_reply *reply)
{
	struct curl_header *h;
	if (u->opt->dsn && curl_easy_header(u->curl, "X-Sentry-Rate-Limits", 0, CURLH_HEADER, -1, &h) == CURLHE_OK)
		reply->session_limit_ms = pmi_sentry_rate_limit_ms(h->value, PMI_SENTRY_SESSIONS);
}

void
pmi_upload_session_send(upload_session *u, const upload_body *body, upload_reply *reply)
{
	memset(reply, 0, sizeof *reply);
	reply->retry_after_ms = reply->session_limit_ms = -1;
	u->status_line[0] = '\0';
	u->excerpt_len = 0;
	u->excerpt_cut = false;
	u->error[0] = '\0';
	CURLcode rc = body->form ? curl_easy_setopt(u->curl, CURLOPT_MIMEPOST, body->form)
	                         : curl_easy_setopt(u->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body->len);
	if (rc == CURLE_OK && !body->form)
		rc = curl_easy_setopt(u->curl, CURLOPT_POSTFIELDS, body->data);
	if (rc == CURLE_OK)
		rc = curl_easy_perform(u->curl);
	if (rc != CURLE_OK) {
		reply->outcome = transport_outcome(u, rc);
		snprintf(reply->reason, sizeof reply->reason, "%s",
		         u->error[0] ? u->error : curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(u->curl, CURLINFO_RESPONSE_CODE, &reply->status);
		reply->outcome = status_outcome(reply->status);
		if (reply->status == 429 || reply->status == 503)
			read_retry_after(u, body, reply);
		read_session_limit(u, reply);
		describe(u, reply);
	}
	pmi_upload_scrub(reply->reason, u->opt);
}
