/*
 * upload.h — internals of the uploader (delivery/upload_*.c).
 *
 * A pass (upload_pass.c) walks the store's pending reports; for each it builds
 * a multipart form (upload_form.c), sends it over one libcurl session
 * (upload_session.c) and decides from the reply whether to mark it sent,
 * quarantine it, retry after a delay (upload_retry.c) or end the pass.
 */
#ifndef PM_DELIVERY_UPLOAD_H
#define PM_DELIVERY_UPLOAD_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "postmortem-tools.h"
#include "sentry.h"
#include "upload_dir.h"

/* Longest quarantine reason we store: status line plus a body excerpt. */
#define UPLOAD_REASON_MAX 512
/* Body bytes of a rejection kept for the reason. */
#define UPLOAD_EXCERPT_MAX 256
/* No Retry-After is believed beyond a day. */
#define UPLOAD_RETRY_AFTER_MAX_MS (24u * 3600u * 1000u)

/*
 * Lets the background thread interrupt a pass: waits end early and the
 * transfer in flight is aborted once `flag` is set.  NULL everywhere means
 * "cannot be stopped" (pm_upload_pending).
 */
typedef struct upload_stop {
	pthread_mutex_t *lock;
	pthread_cond_t *cond;   /* signalled when flag is set; uses CLOCK_MONOTONIC */
	atomic_bool *flag;
} upload_stop;

bool pmi_upload_stopping(const upload_stop *stop);
/* Now on `clock` plus ms, as an absolute deadline. */
struct timespec pmi_upload_deadline(clockid_t clock, uint32_t ms);
/* Sleep ms (or until stopped); false when stopped. */
bool pmi_upload_sleep(const upload_stop *stop, uint32_t ms);

/* Copy of *in with every 0 replaced by its default; checks the URL and headers. */
pm_err pmi_upload_options_resolve(const pm_upload_options *in, pm_upload_options *out);

/*
 * PM_OK when url is http(s) and plain HTTP goes only to loopback (localhost,
 * 127.0.0.0/8 in four decimal parts, [::1]; as written, no shorthand) unless
 * allow_http.  PM_E_INVAL otherwise.
 */
pm_err pmi_upload_url_check(const char *url, bool allow_http);
/* True when url's host is loopback: no proxy from the environment could reach it. */
bool pmi_upload_url_loopback(const char *url);
/* scheme://host[:port]/path of url, without userinfo, query or fragment, for logs. */
void pmi_upload_url_display(const char *url, char *buf, size_t cap);
/* Replace in text (NUL-terminated, edited in place) every secret of opt: header values, URL password and query values. */
void pmi_upload_scrub(char *text, const pm_upload_options *opt);

/* gzip n bytes of in into a malloc'd *out. */
pm_err pmi_upload_gzip(const char *in, size_t n, char **out, size_t *out_len);

/* Full-jitter delay before attempt `attempt + 1` (attempt >= 1). */
uint32_t pmi_upload_backoff(const pm_upload_options *opt, uint32_t attempt);
/* Retry-After value (delta seconds or HTTP date) in ms, clamped to a day; -1 when unusable. */
int64_t pmi_upload_retry_after_ms(const char *value, int64_t now);

/* What one request came to. */
typedef enum upload_outcome {
	UPLOAD_SENT,       /* 2xx */
	UPLOAD_RETRY,      /* 408, 429, 5xx, a transfer that broke off */
	UPLOAD_REJECTED,   /* other 4xx: quarantine */
	UPLOAD_OFFLINE,    /* no connection could be made: end the pass */
	UPLOAD_STOP,       /* TLS or configuration error, odd status, or stopping: end the pass */
} upload_outcome;

typedef struct upload_reply {
	upload_outcome outcome;
	long status;             /* HTTP status, 0 when none came */
	int64_t retry_after_ms;  /* from 429/503, -1 when absent */
	int64_t session_limit_ms; /* Sentry: how long sessions may not be sent (X-Sentry-Rate-Limits on any
	                            reply, which Relay also sends with a 2xx), -1 when none */
	char reason[UPLOAD_REASON_MAX]; /* status line and body excerpt, or the transport error */
} upload_reply;

/* One libcurl handle reused for every report of a pass (keeps the connection). */
typedef struct upload_session {
	CURL *curl;
	struct curl_slist *headers;
	const char *url;         /* opt->url, or the envelope endpoint of opt->dsn */
	sentry_dsn dsn;
	const upload_stop *stop;
	const pm_upload_options *opt;
	char status_line[128];
	char excerpt[UPLOAD_EXCERPT_MAX + 1];
	size_t excerpt_len;
	bool excerpt_cut;
	char error[CURL_ERROR_SIZE];
} upload_session;

pm_err pmi_upload_session_open(upload_session *u, const pm_upload_options *opt, const upload_stop *stop);
void pmi_upload_session_close(upload_session *u);
/* What one report is sent as: a multipart form, or (with a DSN) a Sentry envelope. */
typedef struct upload_body {
	curl_mime *form;
	char *data;
	size_t len;
	pmi_sentry_category category; /* an envelope's: which of Sentry's rate limits apply to it */
} upload_body;

void pmi_upload_session_send(upload_session *u, const upload_body *body, upload_reply *reply);

/*
 * The form for one report: parts "report", "crash" and the minidump (gzipped unless
 * opt->no_gzip) and fields app_name, app_version, id, state, signature, title, and on a
 * crash group's latest report what `group` counts (docs/upload.md).  On failure *why says
 * what went wrong.
 */
pm_err pmi_upload_form_build(upload_session *u, pm_store *s, const pm_store_entry *e,
                         const pmi_group_note *group, curl_mime **form, char *why, size_t why_cap);

/* What a pass is given beside the store and the options, and what it tells back. */
typedef struct upload_pass_ctl {
	const upload_stop *stop;  /* NULL: it cannot be stopped */
	uint32_t deadline_ms;     /* at most this, when less than opt->pass_timeout_ms (0: that) */
	upload_hold hold;         /* in: what servers asked before (nothing is sent that they refused);
	                             out: with what they asked during the pass */
	bool cut_short;           /* out: it ended before its list did (offline, a hold, its deadline, stopped,
	                             the server unwell) */
} upload_pass_ctl;

/* A pass over s's listing; each report and session is looked for again before it goes
 * (another uploader may have sent it since s listed it).  ctl may be NULL. */
pm_err pmi_upload_pass(pm_store *s, const pm_upload_options *opt, pm_upload_result *res, upload_pass_ctl *ctl);

/* ---- upload_lock.c: one uploader at a time per reports directory ------------------- */

typedef struct upload_lock {
	int fd;                   /* <reports_dir>/upload.lock, -1: none */
} upload_lock;

typedef enum upload_lock_state {
	UPLOAD_LOCK_TAKEN,
	UPLOAD_LOCK_BUSY,         /* another uploader has it (waited for wait_ms) */
	UPLOAD_LOCK_ERROR,        /* logged */
} upload_lock_state;

/* Take the lock of the reports directory root, waiting at most wait_ms for another uploader. */
upload_lock_state pmi_upload_lock_take(upload_lock *l, int root, uint32_t wait_ms);
/* Take over fd, the lock a crash handler took and passed on: true when it is root's lock
 * file, locked. */
bool pmi_upload_lock_adopt(upload_lock *l, int root, int fd);
/* Take it again after pmi_upload_lock_release, without waiting: false when another has it. */
bool pmi_upload_lock_retake(upload_lock *l);
void pmi_upload_lock_release(upload_lock *l);
void pmi_upload_lock_close(upload_lock *l);
/* The holds kept in the file (zeros when none); written only by the lock's holder. */
void pmi_upload_hold_read(const upload_lock *l, upload_hold *h);
void pmi_upload_hold_write(const upload_lock *l, const upload_hold *h);

/* curl_global_init once per process (thread-safe). */
bool pmi_upload_curl_init(void);

#endif
