/*
 * store_groups.c — a store's crashes by crash group (pm_store_groups,
 * `postmortem list --group`): the reports it lists and the crashes storm
 * control and the caps only counted (store_group_record.c), one group per
 * signature (docs/grouping.md).
 */
#include "store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "group.h"

bool
pm_store_filter_match(const pm_store_filter *f, const pm_store_entry *e)
{
	if (!f)
		return true;
	if ((f->since || f->until) && !e->time)
		return false;
	if ((f->since && e->time < f->since) || (f->until && e->time > f->until))
		return false;
	return !f->app || strcmp(e->app, f->app) == 0;
}

typedef struct records {
	pm_group_record *v;
	size_t n, cap;
} records;

static int
record_order(const void *a, const void *b)
{
	return strcmp(((const pm_group_record *)a)->signature, ((const pm_group_record *)b)->signature);
}

/* Every record in pending/.groups (none in a store that has no pending/ yet). */
static pm_err
read_records(pm_store *s, records *rs)
{
	int groups = s->dir[PM_SDIR_PENDING] >= 0 ? pmi_groups_open(s->dir[PM_SDIR_PENDING], false) : -1;
	int fd = groups >= 0 ? dup(groups) : -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		if (groups >= 0)
			close(groups);
		return PM_OK;
	}
	pm_err e = PM_OK;
	struct dirent *de;
	while (e == PM_OK && (de = readdir(d)) != NULL) {
		if (!pmi_group_signature_valid(de->d_name))
			continue;
		if (!pmi_grow((void **)&rs->v, &rs->cap, rs->n + 1, sizeof *rs->v)) {
			e = PM_E_NOMEM;
			break;
		}
		pmi_group_record_read(groups, de->d_name, &rs->v[rs->n]);
		if (rs->v[rs->n].dropped > 0 || rs->v[rs->n].sent > 0)
			rs->n++;
	}
	closedir(d);
	close(groups);
	if (rs->n)
		qsort(rs->v, rs->n, sizeof *rs->v, record_order);
	return e;
}

/* ---- at a writable open: records rebuilt, stale temporaries removed, the cap ------------- */

typedef struct aged {
	char signature[PM_SIGNATURE_LEN + 1];
	int64_t last;
} aged;

static int
oldest_first(const void *a, const void *b)
{
	const aged *x = a, *y = b;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return strcmp(x->signature, y->signature);
}

/* One name in .groups: a record that does not read whole is written again from what reads
 * (a directory or a FIFO in its place is removed first); a temporary of the store's that
 * outlived its writer goes. */
static void
tidy_one(pm_store *s, int groups, const char *name, aged **v, size_t *n, size_t *cap)
{
	char id[PM_ID_MAX];
	if (pmi_store_parse_name(name, id) == PM_SK_STORE_TMP) {
		struct stat st;
		if (fstatat(groups, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_mtime < s->now - PM_STALE_SECONDS)
			unlinkat(groups, name, 0);
		return;
	}
	if (!pmi_group_signature_valid(name))
		return; /* not ours: left alone */
	pm_group_record rec;
	if (!pmi_group_record_read(groups, name, &rec)) {
		pmi_store_log("rebuilt the record of crash group %s in %s/pending/%s: it did not read whole", name,
		              s->root_path, PM_GROUPS_DIR);
		struct stat st;
		if (fstatat(groups, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			pmi_store_unlink(groups, name);
		pmi_group_record_write(groups, &rec);
	}
	if (pmi_grow((void **)v, cap, *n + 1, sizeof **v)) {
		memcpy((*v)[*n].signature, name, PM_SIGNATURE_LEN + 1);
		(*v)[(*n)++].last = rec.last;
	}
}

void
pmi_store_tidy_records(pm_store *s)
{
	int groups = s->dir[PM_SDIR_PENDING] >= 0 ? pmi_groups_open(s->dir[PM_SDIR_PENDING], false) : -1;
	if (groups < 0)
		return;
	int fd = pmi_groups_lock(groups) ? dup(groups) : -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		close(groups);
		return;
	}
	aged *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		tidy_one(s, groups, de->d_name, &v, &n, &cap);
	closedir(d);
	if (n > PM_GROUP_RECORDS_MAX) {
		qsort(v, n, sizeof *v, oldest_first);
		for (size_t i = 0; i < n - PM_GROUP_RECORDS_MAX; i++)
			pmi_store_unlink(groups, v[i].signature);
		pmi_store_log("dropped the records of %zu crash groups (over the cap of %d in pending/%s)",
		              n - PM_GROUP_RECORDS_MAX, PM_GROUP_RECORDS_MAX, PM_GROUPS_DIR);
	}
	free(v);
	close(groups);
}

static int
entry_order(const void *a, const void *b)
{
	const pm_store_entry *x = *(const pm_store_entry *const *)a, *y = *(const pm_store_entry *const *)b;
	int c = strcmp(x->signature, y->signature);
	if (c)
		return c;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return strcmp(x->id, y->id);
}

static void
widen(pm_store_group *g, int64_t t)
{
	if (!t)
		return;
	if (!g->first_time || t < g->first_time)
		g->first_time = t;
	if (t > g->last_time)
		g->last_time = t;
}

/* Add an app to the list, once. */
static void
add_app(pm_store_group *g, const char *app)
{
	if (!app || !*app)
		return;
	size_t n = strlen(app);
	for (const char *p = g->apps; *p;) {
		const char *end = strstr(p, ", ");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && memcmp(p, app, n) == 0)
			return;
		if (!end)
			break;
		p = end + 2;
	}
	size_t len = strlen(g->apps);
	snprintf(g->apps + len, sizeof g->apps - len, "%s%s", len ? ", " : "", app);
}

/* The crashes rec counted (dropped and sent) that f lets through; false when none. */
static bool
take_record(pm_store_group *g, const pm_group_record *rec, const pm_store_filter *f)
{
	if (f && f->app && strcmp(rec->app, f->app) != 0)
		return false;
	bool bounded = f && (f->since || f->until);
	if (bounded && (!rec->first || !rec->last))
		return false; /* when they crashed is not known: no window holds them */
	if (bounded && ((f->since && rec->last < f->since) || (f->until && rec->first > f->until)))
		return false;
	if (bounded && ((f->since && rec->first < f->since) || (f->until && rec->last > f->until)))
		g->count_exact = false;
	g->dropped = rec->dropped;
	g->sent = rec->sent;
	widen(g, rec->first);
	widen(g, rec->last);
	add_app(g, rec->app);
	if (!g->title[0])
		snprintf(g->title, sizeof g->title, "%s", rec->title);
	return true;
}

static int
group_order(const void *a, const void *b)
{
	const pm_store_group *x = a, *y = b;
	if (x->last_time != y->last_time)
		return x->last_time < y->last_time ? -1 : 1;
	return strcmp(x->signature, y->signature);
}

/* Entries of one signature, oldest first: the group's reports. */
static void
take_entries(pm_store_group *g, const pm_store_entry *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		widen(g, v[i]->time);
		add_app(g, v[i]->app);
	}
	const pm_store_entry *latest = v[n - 1];
	g->reports = (uint32_t)n;
	snprintf(g->latest_id, sizeof g->latest_id, "%s", latest->id);
	snprintf(g->title, sizeof g->title, "%s", latest->title);
}

static pm_err
merge(const pm_store_entry **v, size_t n, const records *rs, const pm_store_filter *f, pm_store_group **out,
      size_t *count)
{
	pm_store_group *gs = NULL;
	size_t ng = 0, cap = 0, i = 0, k = 0;
	while (i < n || k < rs->n) {
		int c = i == n ? 1 : k == rs->n ? -1 : strcmp(v[i]->signature, rs->v[k].signature);
		if (!pmi_grow((void **)&gs, &cap, ng + 1, sizeof *gs)) {
			free(gs);
			return PM_E_NOMEM;
		}
		pm_store_group *g = &gs[ng];
		memset(g, 0, sizeof *g);
		g->count_exact = true;
		snprintf(g->signature, sizeof g->signature, "%s", c <= 0 ? v[i]->signature : rs->v[k].signature);
		if (c <= 0) {
			size_t j = i;
			while (j < n && strcmp(v[j]->signature, v[i]->signature) == 0)
				j++;
			take_entries(g, v + i, j - i);
			i = j;
		}
		bool counted = c >= 0 && take_record(g, &rs->v[k], f);
		if (c >= 0)
			k++;
		g->count = g->reports + g->dropped + g->sent;
		if (g->reports || counted)
			ng++;
	}
	if (ng)
		qsort(gs, ng, sizeof *gs, group_order);
	else {
		free(gs);
		gs = NULL;
	}
	*out = gs;
	*count = ng;
	return PM_OK;
}

pm_err
pm_store_groups(pm_store *s, const pm_store_filter *f, pm_store_group **out, size_t *count)
{
	if (!s || !out || !count)
		return PM_E_INVAL;
	*out = NULL;
	*count = 0;
	const pm_store_entry **v = s->n ? malloc(s->n * sizeof *v) : NULL;
	if (s->n && !v)
		return PM_E_NOMEM;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const pm_store_entry *e = &s->v[i].pub;
		if (e->signature[0] && pm_store_filter_match(f, e))
			v[n++] = e;
	}
	if (n)
		qsort(v, n, sizeof *v, entry_order);
	records rs = { 0 };
	pm_err e = read_records(s, &rs);
	if (e == PM_OK)
		e = merge(v, n, &rs, f, out, count);
	free(rs.v);
	free(v);
	return e;
}
