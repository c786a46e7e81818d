/*
 * sentry_envelope.c — one report as one Sentry envelope (Sentry's developer
 * documentation, "Envelopes").
 *
 * The envelope is a header line, then per item a header line with the exact
 * length and the payload followed by a newline: the event, the .crash and
 * the JSON twin as plain attachments (an "event.applecrashreport" attachment
 * would make Sentry create a second event from the text), a minidump
 * when one was written beside the report, and the session of the run that
 * crashed.  Sessions whose report went before them go in envelopes of their
 * own, a session item each.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "model.h"
#include "sentry.h"
#include "store.h"
#include "upload.h"

typedef struct buf {
	char *p;
	size_t len, cap;
	bool failed;
} buf;

static void
put(buf *b, const char *p, size_t n)
{
	void *v = b->p;
	if (b->failed || !pmi_grow(&v, &b->cap, b->len + n, 1)) {
		b->failed = true;
		return;
	}
	b->p = v;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
put_str(buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* One item: its header (type, length, then `extra` members) and the payload. */
static void
put_item(buf *b, const char *type, const char *extra, const char *data, size_t len)
{
	char head[512];
	snprintf(head, sizeof head, "{\"type\":\"%s\",\"length\":%zu%s}\n", type, len, extra);
	put_str(b, head);
	put(b, data, len);
	put_str(b, "\n");
}

/*
 * The file <id><ext> of the report through the store's directory descriptor
 * (a regular file, never a symlink); a missing one is left out.  Report ids
 * are [A-Za-z0-9._-] (store_scan.c): nothing in a file name to escape.
 */
static pm_err
put_file(buf *b, int dfd, const char *id, const char *ext, const char *content_type, const char *attachment_type)
{
	char name[PM_ID_MAX + 16], *data;
	size_t len;
	snprintf(name, sizeof name, "%s%s", id, ext);
	pm_err e = pmi_store_slurp(dfd, name, PM_READ_MAX_BYTES, false, &data, &len, NULL);
	if (e != PM_OK)
		return e == PM_E_NOTFOUND ? PM_OK : e;
	char extra[300];
	snprintf(extra, sizeof extra, ",\"filename\":\"%s\",\"content_type\":\"%s\"%s%s%s", name, content_type,
	         attachment_type ? ",\"attachment_type\":\"" : "", attachment_type ? attachment_type : "",
	         attachment_type ? "\"" : "");
	put_item(b, "attachment", extra, data, len);
	free(data);
	return PM_OK;
}

/* The incident id when it is a UUID (so Sentry's event id is the report's), else random. */
static void
event_id_of(const pm_report *r, char out[33])
{
	const char *id = r->header.incident_id;
	size_t n = 0;
	for (const char *p = id; p && *p && n < 33; p++)
		if (isxdigit((unsigned char)*p))
			out[n++] = (char)tolower((unsigned char)*p);
		else if (*p != '-')
			n = 33;
	if (n == 32) {
		out[32] = '\0';
		return;
	}
	unsigned char rnd[16];
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
		for (size_t i = 0; i < sizeof rnd; i++)
			rnd[i] = (unsigned char)(rand() ^ (int)time(NULL));
	for (size_t i = 0; i < sizeof rnd; i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
}

/* The envelope's header: the event's id (none for sessions alone) and when it is sent. */
static void
put_header(buf *b, const char *event_id)
{
	char head[160], now[32];
	time_t t = time(NULL);
	struct tm tm;
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	if (event_id)
		snprintf(head, sizeof head, "{\"event_id\":\"%s\",\"sent_at\":\"%s\"}\n", event_id, now);
	else
		snprintf(head, sizeof head, "{\"sent_at\":\"%s\"}\n", now);
	put_str(b, head);
}

static int64_t
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A session item of each of set's sessions. */
static void
put_sessions(buf *b, const pm_store *s, const pmi_session_set *set, const char *environment)
{
	int64_t now = now_us();
	for (size_t k = 0; set && k < set->n; k++) {
		cJSON *o = pmi_sentry_session(pm_store_session_get(s, set->i[k]), environment, now);
		char *text = o ? cJSON_PrintUnformatted(o) : NULL;
		cJSON_Delete(o);
		if (text)
			put_item(b, "session", "", text, strlen(text));
		else
			b->failed = true;
		free(text);
	}
}

pm_err
pmi_sentry_sessions_envelope(const pm_store *s, const pmi_session_set *set, const pm_upload_options *opt,
                             char **data, size_t *len)
{
	buf b = { 0 };
	put_header(&b, NULL);
	put_sessions(&b, s, set, opt->environment);
	if (b.failed) {
		free(b.p);
		return PM_E_NOMEM;
	}
	*data = b.p;
	*len = b.len;
	return PM_OK;
}

static pm_err
load(pm_store *s, const pm_store_entry *en, bool symbolicate, pm_report *r, char *why, size_t why_cap)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
	pm_err e = pm_store_load(s, en->id, r, &err);
	if (e != PM_OK) {
		snprintf(why, why_cap, "cannot read the report: %s", err.message[0] ? err.message : pm_strerror(e));
		return e;
	}
	if (symbolicate && (e = pm_symbolicate(r, NULL)) != PM_OK)
		pmi_upload_log("%s: symbolication failed (%s)", en->id, pm_strerror(e));
	return PM_OK;
}

pm_err
pmi_sentry_envelope_build(pm_store *s, const pm_store_entry *en, const pm_upload_options *opt,
                          const pmi_session_set *with, const pmi_group_note *group, char **data, size_t *len,
                          char *why, size_t why_cap)
{
	pm_report r;
	pm_err e = load(s, en, opt->symbolicate, &r, why, why_cap);
	char event_id[33];
	event_id_of(&r, event_id);
	cJSON *ev = e == PM_OK ? pmi_sentry_event(&r, event_id, opt->environment, group) : NULL;
	char *event = ev ? cJSON_PrintUnformatted(ev) : NULL;
	cJSON_Delete(ev);
	pm_report_free(&r);
	if (e != PM_OK) {
		/* A report we cannot read is one no server could take either. */
		return e == PM_E_NOMEM || e == PM_E_IO ? e : PM_E_LIMIT;
	}
	const pm_sentry *se = pmi_store_find(s, en->id);
	buf b = { 0 };
	if (event && se) {
		int dfd = s->dir[pmi_store_state_dir(se->pub.state)];
		put_header(&b, event_id);
		put_item(&b, "event", ",\"content_type\":\"application/json\"", event, strlen(event));
		e = put_file(&b, dfd, en->id, ".crash", "text/plain", NULL);
		if (e == PM_OK)
			e = put_file(&b, dfd, en->id, ".json", "application/json", NULL);
		/* A minidump beside the report (issue 17) is the event's own. */
		if (e == PM_OK)
			e = put_file(&b, dfd, en->id, ".dmp", "application/octet-stream", "event.minidump");
		put_sessions(&b, s, with, opt->environment);
	} else {
		b.failed = true;
	}
	free(event);
	if (b.failed || e != PM_OK) {
		free(b.p);
		e = e != PM_OK ? e : PM_E_NOMEM;
		snprintf(why, why_cap, "%s", e == PM_E_LIMIT ? "a report file is too large to upload" : pm_strerror(e));
		return e;
	}
	*data = b.p;
	*len = b.len;
	return PM_OK;
}
