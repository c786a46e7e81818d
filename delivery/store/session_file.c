/*
 * session_file.c — a collected session as its file in sessions/ (and
 * sessions/sent/) holds it: one JSON object, the store's own record (the
 * Sentry payload is built from it at upload time, sentry_session.c):
 *
 *   {"sid": "...", "pid": 1234, "app_id": "...", "app_version": "...",
 *    "started_us": ..., "ended_us": ..., "status": "exited|crashed|abnormal",
 *    "exit_code": 0, "signal": 0, "errors": 0, "mechanism": "", "report": ""}
 */
#include "sessions.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *const status_names[] = { "exited", "crashed", "abnormal" };

char *
pmi_session_to_json(const pm_session *ss)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o && cJSON_AddStringToObject(o, "sid", ss->sid) && cJSON_AddNumberToObject(o, "pid", (double)ss->pid) &&
	          cJSON_AddStringToObject(o, "app_id", ss->app_id) &&
	          cJSON_AddStringToObject(o, "app_version", ss->app_version) &&
	          cJSON_AddNumberToObject(o, "started_us", (double)ss->started_us) &&
	          cJSON_AddNumberToObject(o, "ended_us", (double)ss->ended_us) &&
	          cJSON_AddStringToObject(o, "status", status_names[ss->status]) &&
	          cJSON_AddNumberToObject(o, "exit_code", ss->exit_code) &&
	          cJSON_AddNumberToObject(o, "signal", ss->signal) && cJSON_AddNumberToObject(o, "errors", ss->errors) &&
	          cJSON_AddStringToObject(o, "mechanism", ss->mechanism) &&
	          cJSON_AddStringToObject(o, "report", ss->report);
	char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	return text;
}

static bool
get_str(const cJSON *o, const char *key, char *out, size_t cap)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
	if (!v)
		return false;
	snprintf(out, cap, "%s", v);
	return true;
}

/* An integer member within [lo, hi] (doubles hold microseconds since the epoch exactly). */
static bool
get_int(const cJSON *o, const char *key, double lo, double hi, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi))
		return false;
	*out = (int64_t)v->valuedouble;
	return true;
}

bool
pmi_session_from_json(const char *text, size_t n, pm_session *out)
{
	memset(out, 0, sizeof *out);
	cJSON *o = cJSON_ParseWithLength(text, n);
	int64_t status = -1, exit_code, sig, errors;
	char status_name[16] = "";
	bool ok = cJSON_IsObject(o) && get_str(o, "sid", out->sid, sizeof out->sid) && strlen(out->sid) == 36 &&
	          get_int(o, "pid", 1, PMI_SESSION_PID_MAX, &out->pid) && get_str(o, "app_id", out->app_id, sizeof out->app_id) &&
	          get_str(o, "app_version", out->app_version, sizeof out->app_version) &&
	          get_int(o, "started_us", 0, PMI_SESSION_US_MAX, &out->started_us) &&
	          get_int(o, "ended_us", 0, PMI_SESSION_US_MAX, &out->ended_us) &&
	          get_str(o, "status", status_name, sizeof status_name) && get_int(o, "exit_code", -1, 255, &exit_code) &&
	          get_int(o, "signal", 0, 255, &sig) && get_int(o, "errors", 0, 1e9, &errors) &&
	          get_str(o, "mechanism", out->mechanism, sizeof out->mechanism) &&
	          get_str(o, "report", out->report, sizeof out->report);
	cJSON_Delete(o);
	for (int i = 0; ok && i < 3; i++)
		if (strcmp(status_name, status_names[i]) == 0)
			status = i;
	if (!ok || status < 0)
		return false;
	out->status = (pm_session_status)status;
	out->exit_code = (int)exit_code;
	out->signal = (int)sig;
	out->errors = (uint32_t)errors;
	if (!pmi_sentry_release(out->app_id, out->app_version, out->release, sizeof out->release))
		out->release[0] = '\0';
	return true;
}

void
pmi_session_file_name(const pm_session *ss, char *out, size_t cap)
{
	snprintf(out, cap, "%s.session", ss->sid);
}
