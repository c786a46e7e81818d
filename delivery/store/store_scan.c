/*
 * store_scan.c — list one store directory, grouped by report id.
 *
 * Only names are trusted here (lstat-style, nothing followed): whether a
 * file reads is for the caller to find out.  Memory is one small record per
 * file, not per byte.
 */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

static bool
push(pm_sfile_list *l, const pm_sfile *f)
{
	if (!pmi_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v))
		return false;
	l->v[l->n++] = *f;
	return true;
}

static int
by_id(const void *a, const void *b)
{
	const pm_sfile *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (int)x->kind - (int)y->kind;
}

pm_err
pmi_store_list(int dfd, pm_sdir d, int64_t stale_before, pm_sfile_list *l)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return PM_E_IO;
	}
	pm_err e = PM_OK;
	struct dirent *de;
	while (e == PM_OK && (errno = 0, de = readdir(dir)) != NULL) {
		pm_sfile f;
		struct stat st;
		memset(&f, 0, sizeof f);
		pm_skind kind = pmi_store_parse_name(de->d_name, f.id);
		if (kind == PM_SK_OTHER || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue; /* not ours, or gone since readdir: someone else took it */
		if (kind == PM_SK_STORE_TMP) {
			/* Outlived its writer only if the writer died. */
			if (st.st_mtime < stale_before)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		f.kind = (uint8_t)kind;
		f.dir = (uint8_t)d;
		f.regular = S_ISREG(st.st_mode);
		f.mtime = st.st_mtime;
		f.size = f.regular ? (uint64_t)st.st_size : 0;
		if (!push(l, &f))
			e = PM_E_NOMEM;
	}
	if (e == PM_OK && errno != 0)
		e = PM_E_IO;
	closedir(dir);
	return e;
}

pm_err
pmi_store_scan_dir(pm_store *s, pm_sdir d, pm_store_group_fn *fn)
{
	if (s->dir[d] < 0)
		return PM_OK; /* read-only, and not created yet */
	pm_sfile_list l = { 0 };
	/* Read-only: nothing is old enough to remove. */
	pm_err e = pmi_store_list(s->dir[d], d, s->read_only ? INT64_MIN : s->now - PM_STALE_SECONDS, &l);
	if (e == PM_OK && l.n)
		qsort(l.v, l.n, sizeof *l.v, by_id);
	for (size_t i = 0; e == PM_OK && i < l.n;) {
		pm_sgroup g;
		memset(&g, 0, sizeof g);
		g.id = l.v[i].id;
		for (; i < l.n && strcmp(l.v[i].id, g.id) == 0; i++)
			g.f[l.v[i].kind] = &l.v[i];
		fn(s, d, &g);
	}
	free(l.v);
	return e;
}

int64_t
pmi_sgroup_mtime(const pm_sgroup *g)
{
	int64_t t = 0;
	for (int k = 0; k < PM_SK_COUNT; k++)
		if (g->f[k] && g->f[k]->mtime > t)
			t = g->f[k]->mtime;
	return t;
}

int64_t
pmi_sgroup_first_mtime(const pm_sgroup *g)
{
	int64_t t = INT64_MAX;
	for (int k = 0; k < PM_SK_COUNT; k++)
		if (g->f[k] && g->f[k]->mtime < t)
			t = g->f[k]->mtime;
	return t == INT64_MAX ? 0 : t;
}

pm_sentry *
pmi_store_add(pm_store *s, pm_sdir d, const pm_sgroup *g, pm_report_state state)
{
	if (!pmi_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
		return NULL;
	pm_sentry *e = &s->v[s->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->pub.id, sizeof e->pub.id, "%s", g->id);
	e->pub.state = state;
	e->order = pmi_sgroup_first_mtime(g);
	e->pub.bytes = pmi_store_report_bytes(s->dir[d], g->id);
	return e;
}
