/*
 * sentry.h — delivery to Sentry (docs/sentry.md): the DSN, the event a report
 * becomes (sentry_event.c) and the envelope that carries it (sentry_envelope.c).
 */
#ifndef PM_DELIVERY_SENTRY_H
#define PM_DELIVERY_SENTRY_H

#include <cjson/cJSON.h>
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

/* The event of report r (delivered as event `event_id`, 32 hex digits, in `environment`, which
 * may be NULL); NULL when out of memory. */
cJSON *pmi_sentry_event(const pm_report *r, const char *event_id, const char *environment);

/*
 * The envelope for report e of s under resolved options (symbolicate,
 * environment): the event, then the .crash and the JSON twin as attachments
 * (and <id>.dmp as the event's minidump when one lies beside them).
 * malloc'd into *data; on failure *why says what went wrong.
 */
pm_err pmi_sentry_envelope_build(pm_store *s, const pm_store_entry *e, const pm_upload_options *opt, char **data,
                             size_t *len, char *why, size_t why_cap);

/*
 * The environment of every event into *out: `given`, else $POSTMORTEM_ENVIRONMENT,
 * else "production".  PM_E_INVAL (logged) unless Sentry takes it: 1 to 64
 * bytes, no spaces, line breaks or slashes, not "None".
 */
pm_err pmi_sentry_environment(const char *given, const char **out);

/*
 * How long X-Sentry-Rate-Limits says events may not be sent, in ms (the
 * longest limit on the "error" or "default" category, or on all), clamped to
 * a day; -1 when it limits no event.
 */
int64_t pmi_sentry_rate_limit_ms(const char *value);

#endif
