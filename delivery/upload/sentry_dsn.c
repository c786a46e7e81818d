/*
 * sentry_dsn.c — a Sentry DSN into the envelope endpoint and the X-Sentry-Auth
 * header (Sentry's developer documentation, "Authentication").
 *
 * The DSN is parsed with curl's own URL parser, like upload URLs, so the host
 * judged by pmi_upload_url_check is the host contacted.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "sentry.h"
#include "upload.h"

static bool
all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static pm_err
from_parts(CURLU *u, sentry_dsn *out)
{
	char *scheme = NULL, *key = NULL, *host = NULL, *port = NULL, *path = NULL;
	pm_err e = PM_E_INVAL;
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) || curl_url_get(u, CURLUPART_USER, &key, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) || curl_url_get(u, CURLUPART_PATH, &path, 0))
		goto out;
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	/* The project id is the last path segment; what precedes it is a prefix Sentry keeps. */
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash || !all_digits(slash + 1) || !*key || strpbrk(key, "\r\n,"))
		goto out;
	*slash = '\0';
	int w = snprintf(out->envelope_url, sizeof out->envelope_url, "%s://%s%s%s%s/api/%s/envelope/", scheme,
	                 host, port ? ":" : "", port ? port : "", path, slash + 1);
	int a = snprintf(out->auth, sizeof out->auth,
	                 "X-Sentry-Auth: Sentry sentry_version=7, sentry_key=%s, sentry_client=postmortem/%s", key,
	                 PM_VERSION);
	int k = snprintf(out->key, sizeof out->key, "%s", key);
	if (w > 0 && (size_t)w < sizeof out->envelope_url && a > 0 && (size_t)a < sizeof out->auth && k > 0 &&
	    (size_t)k < sizeof out->key)
		e = PM_OK;
out:
	curl_free(scheme);
	curl_free(key);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	return e;
}

pm_err
pmi_sentry_dsn_parse(const char *dsn, sentry_dsn *out)
{
	memset(out, 0, sizeof *out);
	CURLU *u = dsn ? curl_url() : NULL;
	if (!u)
		return dsn ? PM_E_NOMEM : PM_E_INVAL;
	pm_err e = curl_url_set(u, CURLUPART_URL, dsn, 0) == CURLUE_OK ? from_parts(u, out) : PM_E_INVAL;
	curl_url_cleanup(u);
	if (e == PM_E_INVAL)
		pmi_upload_log("the DSN is not {scheme}://{key}@{host}[:port]/{project id}");
	return e;
}
