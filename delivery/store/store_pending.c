/*
 * store_pending.c — what each report found at open is.
 *
 * pending/: a report is whole when its JSON twin reads and says "complete";
 * a JSON twin that reads without it was salvaged earlier (partial).
 * Anything else is torn and goes to store_salvage.c.  quarantine/ and sent/
 * are listed as they are.
 */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>

/* Files the crash handler writes: the ones a report consists of in pending/. */
static const pm_skind report_kinds[] = { PM_SK_CRASH, PM_SK_JSON, PM_SK_CRASH_TMP, PM_SK_JSON_TMP };

static const pm_sfile *
odd_file(const pm_sgroup *g)
{
	for (size_t i = 0; i < sizeof report_kinds / sizeof report_kinds[0]; i++) {
		const pm_sfile *f = g->f[report_kinds[i]];
		if (f && !f->regular)
			return f;
	}
	return NULL;
}

static bool
has_report_file(const pm_sgroup *g)
{
	for (size_t i = 0; i < sizeof report_kinds / sizeof report_kinds[0]; i++)
		if (g->f[report_kinds[i]])
			return true;
	return false;
}

/* Temporaries left beside a whole report by an attempt that did not finish. */
static void
drop_stale_tmps(pm_store *s, const pm_sgroup *g)
{
	static const pm_skind tmps[] = { PM_SK_CRASH_TMP, PM_SK_JSON_TMP, PM_SK_DMP_TMP };
	for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++) {
		const pm_sfile *f = g->f[tmps[i]];
		if (!f || s->now - f->mtime <= PM_STALE_SECONDS)
			continue;
		char name[PM_ID_MAX + 16];
		pmi_store_file_name(name, sizeof name, g->id, tmps[i]);
		pmi_store_unlink(s->dir[PM_SDIR_PENDING], name);
	}
}

void
pmi_store_take_pending(pm_store *s, pm_sdir d, const pm_sgroup *g)
{
	if (!has_report_file(g))
		return;
	const pm_sfile *odd = odd_file(g);
	if (odd) {
		char name[PM_ID_MAX + 16], reason[PM_ID_MAX + 64];
		pmi_store_file_name(name, sizeof name, g->id, (pm_skind)odd->kind);
		snprintf(reason, sizeof reason, "%s is not a regular file", name);
		if (s->read_only)
			pmi_store_look_torn(s, g, NULL, reason);
		else
			pmi_store_quarantine_group(s, g, reason);
		return;
	}
	pm_report r;
	pm_report_init(&r);
	if (g->f[PM_SK_JSON] && pmi_store_read_json(s->dir[d], g->id, &r, NULL) == PM_OK) {
		pm_sentry *e = pmi_store_add(s, d, g, r.complete ? PM_STATE_PENDING : PM_STATE_PARTIAL);
		if (e)
			pmi_store_summarize(e, &r);
		if (!s->read_only)
			drop_stale_tmps(s, g);
	} else {
		pmi_store_salvage(s, g);
	}
	pm_report_free(&r);
}

static void
read_reason(pm_store *s, const char *id, pm_sentry *e)
{
	char name[PM_ID_MAX + 16], *text;
	size_t len;
	pmi_store_file_name(name, sizeof name, id, PM_SK_REASON);
	if (pmi_store_slurp(s->dir[PM_SDIR_QUARANTINE], name, PM_REASON_MAX, true, &text, &len, NULL) != PM_OK)
		return;
	pmi_store_set_reason(e, text);
	free(text);
}

void
pmi_store_take_other(pm_store *s, pm_sdir d, const pm_sgroup *g)
{
	if (!g->f[PM_SK_CRASH] && !g->f[PM_SK_JSON])
		return;
	pm_sentry *e = pmi_store_add(s, d, g, d == PM_SDIR_SENT ? PM_STATE_SENT : PM_STATE_QUARANTINED);
	if (!e)
		return;
	pm_report r;
	pm_report_init(&r);
	if (pmi_store_read_any(s->dir[d], g->id, &r, NULL) == PM_OK)
		pmi_store_summarize(e, &r);
	pm_report_free(&r);
	if (d == PM_SDIR_QUARANTINE)
		read_reason(s, g->id, e);
}
