/*
 * sentry.h — delivery to Sentry (docs/sentry.md): the DSN, the event a report
 * becomes (sentry_event.c) and the envelope that carries it (sentry_envelope.c).
 */
#ifndef PM_DELIVERY_SENTRY_H
#define PM_DELIVERY_SENTRY_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "postmortem-tools.h"

/* What a DSN ({scheme}://{key}@{host}[:port]/[path/]{project}) tells the uploader. */
typedef struct sentry_dsn {
	char envelope_url[1024]; /* {scheme}://{host}[:port]/[path/]api/{project}/envelope/ */
	char auth[512];          /* the whole X-Sentry-Auth header line */
	char key[128];           /* the public key: masked wherever a server echoes it */
} sentry_dsn;

/* PM_E_INVAL (logged without the key) when dsn is not a DSN. */
pm_err pmi_sentry_dsn_parse(const char *dsn, sentry_dsn *out);

enum {
	PMI_SENTRY_TIME_MAX = 48,
};

/* us (microseconds since the epoch) as RFC 3339 in UTC with microseconds
 * (sentry_time.c); false when the time cannot be told. */
bool pmi_sentry_time(int64_t us, char out[PMI_SENTRY_TIME_MAX]);

/* What a report's upload says of its crash group (docs/sentry.md, "Crash groups"). */
typedef struct pmi_group_note {
	bool fingerprint;        /* the signature is the event's fingerprint (pm_upload_options) */
	uint64_t not_sent;       /* on a group's latest report: its crashes storm control counted and no
	                            server was told of yet; 0 on every other report */
	int64_t first, last;     /* when the first and the last of those crashed (seconds; 0 unknown) */
	uint64_t reports;        /* the group's reports this pass has (this one among them) */
} pmi_group_note;

/* The event of report r (delivered as event `event_id`, 32 hex digits, in `environment`, which
 * may be NULL; its crash group as `group` says); NULL when out of memory. */
cJSON *pmi_sentry_event(const pm_report *r, const char *event_id, const char *environment,
                        const pmi_group_note *group);

/* The session update of ss (sentry_session.c): its first and final one, in `environment`
 * (may be NULL); the time is now_us when its end is unknown.  NULL when it has no release
 * or out of memory. */
cJSON *pmi_sentry_session(const pm_session *ss, const char *environment, int64_t now_us);

/* Sessions that go in an envelope: indices into pm_store_session_get (up to PMI_SENTRY_SESSIONS_MAX). */
enum { PMI_SENTRY_SESSIONS_MAX = 100 /* Relay's limit per envelope */ };
typedef struct pmi_session_set {
	size_t i[PMI_SENTRY_SESSIONS_MAX];
	size_t n;
} pmi_session_set;

/*
 * The envelope for report e of s under resolved options (symbolicate,
 * environment): the event, then the .crash and the JSON twin as attachments
 * (and <id>.dmp as the event's minidump when one lies beside them), then the
 * sessions of `with` (the run that crashed: Sentry's advice is to send a crashed
 * session in its crash's envelope; may be NULL).  malloc'd into *data; on failure
 * *why says what went wrong.
 */
pm_err pmi_sentry_envelope_build(pm_store *s, const pm_store_entry *e, const pm_upload_options *opt,
                                 const pmi_session_set *with, const pmi_group_note *group, char **data,
                                 size_t *len, char *why, size_t why_cap);
/* An envelope of sessions alone (set's, one item each), malloc'd into *data. */
pm_err pmi_sentry_sessions_envelope(const pm_store *s, const pmi_session_set *set, const pm_upload_options *opt,
                                    char **data, size_t *len);

/*
 * The environment of every event into *out: `given`, else $POSTMORTEM_ENVIRONMENT,
 * else "production".  PM_E_INVAL (logged) unless Sentry takes it: 1 to 64
 * bytes, no spaces, line breaks or slashes, not "None".
 */
pm_err pmi_sentry_environment(const char *given, const char **out);

/* What an envelope carries, as X-Sentry-Rate-Limits names its data categories. */
typedef enum pmi_sentry_category {
	PMI_SENTRY_EVENTS,       /* "error" and "default" */
	PMI_SENTRY_SESSIONS,     /* "session" */
} pmi_sentry_category;

/*
 * How long X-Sentry-Rate-Limits says data of category c may not be sent, in ms
 * (the longest limit on its categories, or on all), clamped to a day; -1 when it
 * limits none of it.
 */
int64_t pmi_sentry_rate_limit_ms(const char *value, pmi_sentry_category c);

#endif
