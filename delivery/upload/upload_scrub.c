/*
 * upload_scrub.c — keep our own secrets out of text a server sends back.
 *
 * A rejection's body goes into the quarantine reason, and some servers echo
 * the request ("invalid token abc…").  Before storing it we mask everything
 * the caller gave us that could be a credential: each extra header's value
 * and its words, the URL's user name, password and query values.
 */
#include <curl/curl.h>
#include <string.h>

#include "upload.h"

/* Shorter pieces are too likely to be ordinary words of the message. */
#define SECRET_MIN 4

static const char mask[] = "***";

static void
mask_all(char *text, const char *secret, size_t n)
{
	if (n < SECRET_MIN)
		return;
	char *hit;
	while ((hit = memmem(text, strlen(text), secret, n)) != NULL) {
		memcpy(hit, mask, sizeof mask - 1);
		memmove(hit + sizeof mask - 1, hit + n, strlen(hit + n) + 1);
	}
}

/* The whole of s[0..n) and each blank-separated word of it. */
static void
mask_words(char *text, const char *s, size_t n)
{
	mask_all(text, s, n);
	while (n > 0) {
		size_t skip = 0, len = 0;
		while (skip < n && (s[skip] == ' ' || s[skip] == '\t'))
			skip++;
		while (skip + len < n && s[skip + len] != ' ' && s[skip + len] != '\t')
			len++;
		mask_all(text, s + skip, len);
		s += skip + len;
		n -= skip + len;
	}
}

/* Each "name=value" pair of a query, and each value alone. */
static void
mask_query(char *text, const char *q)
{
	while (*q) {
		size_t len = strcspn(q, "&");
		const char *eq = memchr(q, '=', len);
		mask_all(text, q, len);
		if (eq)
			mask_all(text, eq + 1, len - (size_t)(eq + 1 - q));
		q += len + (q[len] == '&');
	}
}

static void
mask_url(char *text, const char *url)
{
	CURLU *u = curl_url();
	char *user = NULL, *password = NULL, *query = NULL;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
		if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK)
			mask_all(text, user, strlen(user));
		if (curl_url_get(u, CURLUPART_PASSWORD, &password, 0) == CURLUE_OK)
			mask_all(text, password, strlen(password));
		if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK)
			mask_query(text, query);
	}
	curl_free(user);
	curl_free(password);
	curl_free(query);
	curl_url_cleanup(u);
}

void
pmi_upload_scrub(char *text, const pm_upload_options *opt)
{
	for (size_t i = 0; i < opt->header_count; i++) {
		const char *v = strchr(opt->headers[i], ':');
		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		size_t n = strlen(v);
		while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		mask_words(text, v, n);
	}
	if (opt->url)
		mask_url(text, opt->url);
	if (opt->dsn)
		mask_url(text, opt->dsn);
}
