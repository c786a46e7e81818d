/*
 * upload_url.c — which URLs the uploader accepts, and how they appear in logs.
 *
 * Reports hold memory contents, paths and user names, so they must not cross
 * a network in clear text: plain HTTP is accepted only to this machine's
 * loopback unless the caller explicitly allows it.  The URL is parsed with
 * curl's own parser so the host we judge is the host curl will contact.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "upload.h"

/*
 * Loopback is exactly: localhost (with or without the final dot), an IPv4
 * address in four plain decimal parts starting 127 (inet_pton's form), or an
 * IPv6 loopback address in brackets.  Shorthands such as 127.1, 0x7f.1 or
 * 2130706433 are not: curl rewrites them to 127.0.0.1, so the host we judge
 * is compared with the host as written (written_host) and must be the same.
 */
static bool
is_loopback(const char *host)
{
	if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
		return true;
	struct in_addr v4;
	if (inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	size_t n = strlen(host);
	if (n < 3 || host[0] != '[' || host[n - 1] != ']')
		return false;
	char inner[64];
	struct in6_addr v6;
	if (n - 2 >= sizeof inner)
		return false;
	memcpy(inner, host + 1, n - 2);
	inner[n - 2] = '\0';
	return inet_pton(AF_INET6, inner, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

/* Whether url's authority, as written, names exactly `host` (curl's reading of it). */
static bool
written_host(const char *url, const char *host)
{
	const char *at = strstr(url, "://");
	if (!at)
		return false;
	at += 3;
	size_t auth = strcspn(at, "/?#");
	for (size_t i = auth; i > 0; i--) {
		if (at[i - 1] == '@') {
			auth -= i;
			at += i;
			break;
		}
	}
	const char *end = at[0] == '[' ? memchr(at, ']', auth) : NULL;
	size_t n = end ? (size_t)(end - at) + 1 : strcspn(at, ":");
	if (n > auth)
		n = auth;
	return strlen(host) == n && strncasecmp(at, host, n) == 0;
}

static CURLU *
parse(const char *url)
{
	CURLU *u = curl_url();
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		return NULL;
	}
	return u;
}

/* The scheme and host of url (curl_free both), false when it has none. */
static bool
scheme_host(const char *url, char **scheme, char **host)
{
	*scheme = *host = NULL;
	CURLU *u = url ? parse(url) : NULL;
	bool ok = u && curl_url_get(u, CURLUPART_SCHEME, scheme, 0) == CURLUE_OK
	          && curl_url_get(u, CURLUPART_HOST, host, 0) == CURLUE_OK;
	curl_url_cleanup(u);
	return ok;
}

bool
pmi_upload_url_loopback(const char *url)
{
	char *scheme, *host;
	bool loopback = scheme_host(url, &scheme, &host) && is_loopback(host) && written_host(url, host);
	curl_free(scheme);
	curl_free(host);
	return loopback;
}

pm_err
pmi_upload_url_check(const char *url, bool allow_http)
{
	if (!url || !*url) {
		pmi_upload_log("no URL to upload to");
		return PM_E_INVAL;
	}
	char *scheme, *host;
	pm_err e = PM_E_INVAL;
	if (!scheme_host(url, &scheme, &host))
		pmi_upload_log("the URL is not scheme://host/...");
	else if (strcasecmp(scheme, "https") == 0)
		e = PM_OK;
	else if (strcasecmp(scheme, "http") != 0)
		pmi_upload_log("unsupported scheme '%s' (use https)", scheme);
	else if (allow_http || (is_loopback(host) && written_host(url, host)))
		e = PM_OK;
	else if (is_loopback(host))
		pmi_upload_log("refusing plain HTTP to %s written another way: write loopback as localhost, "
		           "127.x.x.x in four decimal parts or [::1] (or allow HTTP explicitly)", host);
	else
		pmi_upload_log("refusing plain HTTP to %s: reports would cross the network unencrypted "
		           "(use https, or allow HTTP explicitly)", host);
	curl_free(scheme);
	curl_free(host);
	return e;
}

void
pmi_upload_url_display(const char *url, char *buf, size_t cap)
{
	CURLU *u = url ? parse(url) : NULL;
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	if (u && curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK
	    && curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK
	    && curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_PORT, &port, 0);
		snprintf(buf, cap, "%s://%s%s%s%s", scheme, host, port ? ":" : "", port ? port : "", path);
	} else {
		snprintf(buf, cap, "(unparsable URL)");
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);
}
