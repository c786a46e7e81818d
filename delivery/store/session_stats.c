/*
 * session_stats.c — crash-free rates per release from the store's sessions,
 * sent and waiting (`postmortem stats`), counted as Sentry's release health
 * counts them: a run is exited (no errors), errored (exited with errors),
 * crashed or abnormal; the crash-free rate is the share of runs that did
 * not crash (abnormal runs are not crashes, as in Sentry: their count and
 * its OOM kills stand beside it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "store.h"

static void
name_of(const pm_session *ss, char *out, size_t cap)
{
	if (ss->release[0])
		snprintf(out, cap, "%s", ss->release);
	else
		snprintf(out, cap, "%s (version unknown)", ss->app_id[0] ? ss->app_id : "?");
}

static int
newest_first(const void *a, const void *b)
{
	const pm_release_stats *x = a, *y = b;
	if (x->last_started_us != y->last_started_us)
		return x->last_started_us > y->last_started_us ? -1 : 1;
	return strcmp(x->release, y->release);
}

pm_release_stats *
pm_store_release_stats(const pm_store *s, size_t *count)
{
	pm_release_stats *v = NULL;
	size_t n = 0, cap = 0;
	*count = 0;
	for (size_t i = 0; i < pm_store_session_count(s); i++) {
		const pm_session *ss = pm_store_session_get(s, i);
		char name[sizeof v->release];
		name_of(ss, name, sizeof name);
		size_t k = 0;
		while (k < n && strcmp(v[k].release, name) != 0)
			k++;
		if (k == n) {
			if (!pmi_grow((void **)&v, &cap, n + 1, sizeof *v)) {
				free(v);
				return NULL;
			}
			memset(&v[n], 0, sizeof v[n]);
			snprintf(v[n++].release, sizeof v->release, "%s", name);
		}
		pm_release_stats *r = &v[k];
		r->runs++;
		r->crashed += ss->status == PM_SESSION_CRASHED;
		r->abnormal += ss->status == PM_SESSION_ABNORMAL;
		r->oom_kills += ss->status == PM_SESSION_ABNORMAL && strcmp(ss->mechanism, "oom_kill") == 0;
		r->errored += ss->status == PM_SESSION_EXITED && ss->errors > 0;
		r->exited += ss->status == PM_SESSION_EXITED && ss->errors == 0;
		if (ss->started_us > r->last_started_us)
			r->last_started_us = ss->started_us;
	}
	for (size_t k = 0; k < n; k++)
		v[k].crash_free = (double)(v[k].runs - v[k].crashed) / v[k].runs;
	if (n)
		qsort(v, n, sizeof *v, newest_first);
	*count = n;
	return v;
}
