/*
 * upload_options.c — defaults and checks for pm_upload_options (and the
 * check alone, for a command that keeps options to use later).
 *
 * Everything is checked before the first byte leaves: a refused URL or a
 * malformed header fails the call instead of failing every report.
 */
#include <string.h>

#include "sentry.h"
#include "upload.h"

static void
default_u32(uint32_t *v, uint32_t def)
{
	if (*v == 0)
		*v = def;
}

/* "Name: value" with a token name and no line breaks (they would smuggle in more headers). */
static bool
header_ok(const char *h)
{
	const char *colon = h ? strchr(h, ':') : NULL;
	if (!colon || colon == h || strpbrk(h, "\r\n"))
		return false;
	for (const char *p = h; p < colon; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("()<>@,;\\\"/[]?={}", *p))
			return false;
	return true;
}

pm_err
pmi_upload_options_resolve(const pm_upload_options *in, pm_upload_options *out)
{
	if (!in || (in->header_count > 0 && !in->headers))
		return PM_E_INVAL;
	*out = *in;
	default_u32(&out->connect_timeout_ms, 10000);
	default_u32(&out->timeout_ms, 60000);
	default_u32(&out->pass_timeout_ms, out->timeout_ms > UINT32_MAX / 2 ? UINT32_MAX : 2 * out->timeout_ms);
	default_u32(&out->max_attempts, 5);
	default_u32(&out->backoff_ms, 1000);
	default_u32(&out->backoff_max_ms, 60000);
	if (out->backoff_max_ms < out->backoff_ms)
		out->backoff_max_ms = out->backoff_ms;
	for (size_t i = 0; i < in->header_count; i++) {
		if (!header_ok(in->headers[i])) {
			/* The header itself may hold a token: say which one, not what it says. */
			pmi_upload_log("extra header #%zu is not 'Name: value' on one line", i + 1);
			return PM_E_INVAL;
		}
	}
	if (!in->dsn)
		return pmi_upload_url_check(in->url, in->allow_http);
	sentry_dsn dsn;
	if (in->url) {
		pmi_upload_log("give a URL or a DSN, not both");
		return PM_E_INVAL;
	}
	pm_err e = pmi_sentry_dsn_parse(in->dsn, &dsn);
	if (e == PM_OK)
		e = pmi_sentry_environment(in->environment, &out->environment);
	return e == PM_OK ? pmi_upload_url_check(dsn.envelope_url, in->allow_http) : e;
}

pm_err
pm_upload_options_check(const pm_upload_options *opt)
{
	pm_upload_options resolved;
	return pmi_upload_options_resolve(opt, &resolved);
}
