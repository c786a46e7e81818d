/*
 * sentry_session.c — a run's session as Sentry's session update (Sentry's
 * developer documentation, "Sessions"; docs/sentry.md, "Sessions").
 *
 * A run is over before postmortem sends anything, so each session is sent
 * once, as its first and final update: `init` true and its terminal status.
 * `did` is not sent (postmortem keeps no user id), nor `seq` (init forces it
 * to 0), nor `abnormal_mechanism` (Sentry knows only ANR kinds there and
 * takes any other value as none: why an abnormal run ended stays local,
 * `postmortem stats`).
 */
#include <stdio.h>
#include <string.h>

#include "sentry.h"

static const char *const status_names[] = { "exited", "crashed", "abnormal" };

cJSON *
pmi_sentry_session(const pm_session *ss, const char *environment, int64_t now_us)
{
	char started[PMI_SENTRY_TIME_MAX], stamp[PMI_SENTRY_TIME_MAX];
	if (!ss->release[0] || !pmi_sentry_time(ss->started_us, started) ||
	    !pmi_sentry_time(ss->ended_us ? ss->ended_us : now_us, stamp))
		return NULL;
	cJSON *o = cJSON_CreateObject();
	cJSON *attrs = o ? cJSON_AddObjectToObject(o, "attrs") : NULL;
	bool ok = attrs && cJSON_AddStringToObject(o, "sid", ss->sid) && cJSON_AddBoolToObject(o, "init", true) &&
	          cJSON_AddStringToObject(o, "started", started) && cJSON_AddStringToObject(o, "timestamp", stamp) &&
	          /* Sentry averages durations over exited sessions; an end nobody saw has none. */
	          (!ss->ended_us ||
	           cJSON_AddNumberToObject(o, "duration", (double)(ss->ended_us - ss->started_us) / 1e6) != NULL) &&
	          cJSON_AddStringToObject(o, "status", status_names[ss->status]) &&
	          cJSON_AddNumberToObject(o, "errors", ss->errors) &&
	          cJSON_AddStringToObject(attrs, "release", ss->release) &&
	          (!environment || cJSON_AddStringToObject(attrs, "environment", environment));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
