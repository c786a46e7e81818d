/*
 * store.c — the report store's public API (include/postmortem-tools.h, docs/store.md).
 *
 * pm_store_open does all the work once: list, salvage, quarantine, caps,
 * crash loops, sort.  What follows acts on single reports by id and keeps
 * the listing a snapshot: entries never move, so a caller may walk a list
 * while marking its reports sent.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reports_dir.h"
#include "sessions.h"

enum {
	DEFAULT_MAX_PENDING = 100,
	DEFAULT_MAX_BYTES = 50 * 1024 * 1024,
};

static void
configure(pm_store *s, const pm_store_options *opt)
{
	pm_store_options none = { 0 };
	if (!opt)
		opt = &none;
	s->max_pending = opt->max_pending ? opt->max_pending : DEFAULT_MAX_PENDING;
	s->max_bytes = opt->max_bytes ? opt->max_bytes : DEFAULT_MAX_BYTES;
	s->keep_sent = opt->keep_sent;
	s->read_only = opt->read_only;
	s->loop_count = opt->crash_loop_count ? opt->crash_loop_count : PM_DEFAULT_LOOP_COUNT;
	s->loop_seconds = opt->crash_loop_seconds ? opt->crash_loop_seconds : PM_DEFAULT_LOOP_SECONDS;
	pmi_storm_policy(&s->storm, opt->storm_first, opt->storm_last);
}

static pm_err
open_dirs(pm_store *s, const pm_store_options *opt)
{
	if (!pmi_store_resolve_dir(opt ? opt->dir : NULL, s->root_path, sizeof s->root_path))
		return PM_E_INVAL;
	char why[256];
	s->root = pmi_private_dir_open(AT_FDCWD, s->root_path, true, why, sizeof why);
	if (s->root < 0) {
		if (errno == ENOENT)
			return PM_E_NOTFOUND;
		pmi_store_log("refusing the reports directory %s: %s", s->root_path, why);
		return PM_E_IO;
	}
	for (pm_sdir d = 0; d < PM_SDIR_COUNT; d++) {
		if (s->read_only) {
			/* A state directory not there yet holds no report: leave it so. */
			s->dir[d] = pmi_private_dir_open(s->root, pmi_sdir_names[d], false, why, sizeof why);
			if (s->dir[d] < 0 && errno == ENOENT)
				continue;
		} else {
			s->dir[d] = pmi_store_open_subdir(s->root, pmi_sdir_names[d], why, sizeof why);
		}
		if (s->dir[d] < 0) {
			pmi_store_log("refusing %s/%s: %s", s->root_path, pmi_sdir_names[d], why);
			return PM_E_IO;
		}
	}
	return PM_OK;
}

/* Delivery order: crash loops first, then oldest first. */
static int
listing_order(const void *a, const void *b)
{
	const pm_sentry *x = a, *y = b;
	if (x->pub.state != y->pub.state)
		return x->pub.state < y->pub.state ? -1 : 1;
	if (x->pub.crash_loop != y->pub.crash_loop)
		return x->pub.crash_loop ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->pub.id, y->pub.id);
}

static void
build_listing(pm_store *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, listing_order);
	size_t i = 0;
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT + 1; st++) {
		while (i < s->n && (int)s->v[i].pub.state < st)
			i++;
		s->start[st] = i;
	}
}

pm_err
pm_store_open(pm_store **out, const pm_store_options *opt)
{
	if (!out)
		return PM_E_INVAL;
	*out = NULL;
	pm_store *s = calloc(1, sizeof *s);
	if (!s)
		return PM_E_NOMEM;
	s->root = s->runs = s->session_dir[0] = s->session_dir[1] = -1;
	for (pm_sdir d = 0; d < PM_SDIR_COUNT; d++)
		s->dir[d] = -1;
	configure(s, opt);
	s->now = (int64_t)time(NULL);
	pm_err e = open_dirs(s, opt);
	/* pending/ last: what it quarantines must not be listed twice. */
	if (e == PM_OK)
		e = pmi_store_scan_dir(s, PM_SDIR_QUARANTINE, pmi_store_take_other);
	if (e == PM_OK)
		e = pmi_store_scan_dir(s, PM_SDIR_SENT, pmi_store_take_other);
	if (e == PM_OK)
		e = pmi_store_scan_dir(s, PM_SDIR_PENDING, pmi_store_take_pending);
	if (e != PM_OK) {
		pm_store_close(s);
		return e;
	}
	if (!s->read_only) {
		/* Storm control before the caps: what it keeps of a crash loop leaves room for the rest. */
		pmi_store_apply_storm(s);
		pmi_store_apply_caps(s);
		pmi_store_tidy_records(s);
	}
	pmi_store_mark_loops(s);
	build_listing(s);
	/* After the reports (a run that crashed is told by its report) and before anything is
	 * delivered.  A store that only looks collects when its sessions are first asked for:
	 * list, show and explain do not pay for reading the kernel log. */
	if (!s->read_only)
		pmi_store_sessions_load(s);
	*out = s;
	return PM_OK;
}

void
pm_store_close(pm_store *s)
{
	if (!s)
		return;
	pmi_store_flush_sent(s);
	pmi_store_sessions_free(s);
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].reason_buf);
	free(s->v);
	for (pm_sdir d = 0; d < PM_SDIR_COUNT; d++)
		if (s->dir[d] >= 0)
			close(s->dir[d]);
	if (s->root >= 0)
		close(s->root);
	free(s);
}

size_t
pm_store_count(const pm_store *s, pm_report_state state)
{
	if (!s || (int)state < PM_STATE_PENDING || state > PM_STATE_SENT)
		return 0;
	return s->start[state + 1] - s->start[state];
}

const pm_store_entry *
pm_store_get(const pm_store *s, pm_report_state state, size_t i)
{
	if (i >= pm_store_count(s, state))
		return NULL;
	return &s->v[s->start[state] + i].pub;
}

static const char *
path_of(pm_store *s, char *buf, pm_sdir d, const char *id, pm_skind kind)
{
	char name[PM_ID_MAX + 16];
	struct stat st;
	pmi_store_file_name(name, sizeof name, id, kind);
	if (fstatat(s->dir[d], name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	int n = snprintf(buf, PATH_MAX, "%s/%s/%s", s->root_path, pmi_sdir_names[d], name);
	return n > 0 && n < PATH_MAX ? buf : NULL;
}

pm_err
pm_store_paths(pm_store *s, const char *id, const char **crash_path, const char **json_path)
{
	pm_sentry *e = pmi_store_find(s, id);
	if (!e)
		return PM_E_NOTFOUND;
	pm_sdir d = pmi_store_state_dir(e->pub.state);
	const char *c = path_of(s, s->path_buf[0], d, id, PM_SK_CRASH);
	const char *j = path_of(s, s->path_buf[1], d, id, PM_SK_JSON);
	if (crash_path)
		*crash_path = c;
	if (json_path)
		*json_path = j;
	return c || j ? PM_OK : PM_E_NOTFOUND;
}

const char *
pm_store_minidump_path(pm_store *s, const char *id)
{
	pm_sentry *e = pmi_store_find(s, id);
	return e ? path_of(s, s->path_buf[2], pmi_store_state_dir(e->pub.state), id, PM_SK_DMP) : NULL;
}

pm_err
pm_store_mark_sent(pm_store *s, const char *id)
{
	if (s->read_only)
		return PM_E_INVAL;
	pm_sentry *e = pmi_store_find(s, id);
	if (!e)
		return PM_E_NOTFOUND;
	if (e->pub.state != PM_STATE_PENDING && e->pub.state != PM_STATE_PARTIAL)
		return PM_E_INVAL;
	pm_err rc;
	if (s->keep_sent) {
		rc = pmi_store_move_report(s, PM_SDIR_PENDING, PM_SDIR_SENT, id);
	} else {
		rc = pmi_store_remove(s, PM_SDIR_PENDING, id);
		if (rc == PM_OK) {
			pm_crash_rec rec;
			pmi_store_rec_of(&rec, e);
			pmi_history_add(s->root, &rec);
			/* Gone from the store, still one crash of its group. */
			pmi_store_count_sent(s, e);
		}
	}
	if (rc == PM_OK)
		e->pub.state = PM_STATE_SENT;
	return rc;
}

pm_err
pm_store_quarantine(pm_store *s, const char *id, const char *reason)
{
	if (s->read_only)
		return PM_E_INVAL;
	pm_sentry *e = pmi_store_find(s, id);
	if (!e)
		return PM_E_NOTFOUND;
	if (e->pub.state != PM_STATE_QUARANTINED) {
		pm_err rc = pmi_store_move_report(s, pmi_store_state_dir(e->pub.state), PM_SDIR_QUARANTINE, id);
		if (rc != PM_OK)
			return rc;
		e->pub.state = PM_STATE_QUARANTINED;
	}
	pmi_store_set_reason(e, reason ? reason : "quarantined");
	return pmi_store_write_reason(s, e);
}

pm_err
pm_store_delete(pm_store *s, const char *id)
{
	if (s->read_only)
		return PM_E_INVAL;
	pm_sentry *e = pmi_store_find(s, id);
	if (!e)
		return PM_E_NOTFOUND;
	return pmi_store_remove(s, pmi_store_state_dir(e->pub.state), id);
}
