/*
 * store_loop.c — crash-loop detection.
 *
 * An app is in a crash loop when its newest `count` crashes each came
 * within `seconds` of its launch.  The store flags those reports (they are
 * delivered first); pm_crash_loop_detected answers the same question for
 * the running program at start-up, cheaply: it reads the headers of the
 * newest few reports only, never the whole directory.
 */
#include "store.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports_dir.h"

enum {
	/* Reports whose headers pm_crash_loop_detected reads, per crash it needs. */
	PEEK_PER_CRASH = 8,
	PEEK_BYTES = 16 * 1024,
};

void
pmi_store_rec_of(pm_crash_rec *rec, const pm_sentry *e)
{
	memset(rec, 0, sizeof *rec);
	memcpy(rec->id, e->pub.id, sizeof rec->id);
	memcpy(rec->app, e->pub.app, sizeof rec->app);
	rec->time = e->pub.time;
	rec->launch = e->launch;
}

size_t
pmi_loop_run(const pm_crash_rec *recs, size_t n, uint32_t seconds)
{
	size_t run = 0;
	while (run < n && recs[run].time && recs[run].launch && recs[run].time >= recs[run].launch &&
	       recs[run].time - recs[run].launch <= (int64_t)seconds)
		run++;
	return run;
}

/* By app, newest first. */
static int
by_app_newest(const void *a, const void *b)
{
	const pm_crash_rec *x = a, *y = b;
	int c = strcmp(x->app, y->app);
	if (c)
		return c;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The crashes the store knows of: its reports (not the quarantined ones:
 * those may not even be crashes) and the delivered ones in the history. */
static size_t
gather(pm_store *s, pm_crash_rec *recs)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const pm_sentry *e = &s->v[i];
		if (e->pub.state == PM_STATE_QUARANTINED)
			continue;
		pmi_store_rec_of(&recs[n++], e);
	}
	pm_crash_rec hist[PM_HISTORY_MAX];
	size_t h = pmi_history_read(s->root, hist, PM_HISTORY_MAX);
	for (size_t i = 0; i < h; i++)
		if (!pmi_store_find(s, hist[i].id))
			recs[n++] = hist[i];
	return n;
}

void
pmi_store_mark_loops(pm_store *s)
{
	pm_crash_rec *recs = malloc((s->n + PM_HISTORY_MAX) * sizeof *recs);
	if (!recs)
		return;
	size_t n = gather(s, recs);
	if (n)
		qsort(recs, n, sizeof *recs, by_app_newest);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(recs[j].app, recs[i].app) == 0)
			j++;
		size_t run = pmi_loop_run(recs + i, j - i, s->loop_seconds);
		for (size_t k = 0; run >= s->loop_count && k < run; k++) {
			pm_sentry *e = pmi_store_find(s, recs[i + k].id);
			if (e)
				e->pub.crash_loop = true;
		}
		i = j;
	}
	free(recs);
}

/* ---- pm_crash_loop_detected ------------------------------------------------ */

/* Texts first (they are written first, even when torn), newest first. */
static int
newest_text_first(const void *a, const void *b)
{
	const pm_sfile *x = a, *y = b;
	bool tx = x->kind == PM_SK_CRASH && x->regular, ty = y->kind == PM_SK_CRASH && y->regular;
	if (tx != ty)
		return tx ? -1 : 1;
	return x->mtime != y->mtime ? (x->mtime > y->mtime ? -1 : 1) : strcmp(x->id, y->id);
}

static bool
peek(int dfd, const char *id, pm_crash_rec *rec)
{
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, id, PM_SK_CRASH);
	pm_report r;
	pm_report_init(&r);
	bool ok = pmi_store_read_torn(dfd, name, false, PEEK_BYTES, true, &r, NULL) == PM_OK;
	if (ok) {
		pm_sentry e;
		memset(&e, 0, sizeof e);
		memcpy(e.pub.id, id, sizeof e.pub.id);
		pmi_store_summarize(&e, &r);
		pmi_store_rec_of(rec, &e);
	}
	pm_report_free(&r);
	return ok;
}

static int
newest_first(const void *a, const void *b)
{
	const pm_crash_rec *x = a, *y = b;
	return x->time != y->time ? (x->time > y->time ? -1 : 1) : strcmp(x->id, y->id);
}

/* dirs: pending/ and sent/ (-1 when absent). */
static bool
loop_in(int root, const int dirs[PM_SDIR_COUNT], const char *app)
{
	pm_sfile_list l = { 0 };
	for (pm_sdir d = 0; d < PM_SDIR_COUNT; d++)
		if (dirs[d] >= 0)
			pmi_store_list(dirs[d], d, 0, &l);
	if (l.n)
		qsort(l.v, l.n, sizeof *l.v, newest_text_first);
	pm_crash_rec recs[PM_DEFAULT_LOOP_COUNT + PM_HISTORY_MAX], hist[PM_HISTORY_MAX];
	size_t k = 0;
	for (size_t i = 0; i < l.n && i < PM_DEFAULT_LOOP_COUNT * PEEK_PER_CRASH && k < PM_DEFAULT_LOOP_COUNT; i++) {
		const pm_sfile *f = &l.v[i];
		if (f->kind != PM_SK_CRASH || !f->regular)
			break;
		if (peek(dirs[f->dir], f->id, &recs[k]) && strcmp(recs[k].app, app) == 0)
			k++;
	}
	free(l.v);
	size_t h = pmi_history_read(root, hist, PM_HISTORY_MAX);
	for (size_t i = 0; i < h; i++)
		if (strcmp(hist[i].app, app) == 0)
			recs[k++] = hist[i];
	if (k)
		qsort(recs, k, sizeof *recs, newest_first);
	return pmi_loop_run(recs, k, PM_DEFAULT_LOOP_SECONDS) >= PM_DEFAULT_LOOP_COUNT;
}

bool
pm_crash_loop_detected(void)
{
	char path[PATH_MAX], exe[PATH_MAX], app[sizeof ((pm_crash_rec *)0)->app];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0 || !pmi_store_resolve_dir(NULL, path, sizeof path))
		return false;
	exe[len] = '\0';
	/* The name the crash handler writes as the process, cut as entries cut it. */
	const char *slash = strrchr(exe, '/'), *base = slash ? slash + 1 : exe;
	size_t n = strnlen(base, sizeof app - 1);
	memcpy(app, base, n);
	app[n] = '\0';
	char why[256];
	int root = pmi_private_dir_open(AT_FDCWD, path, true, why, sizeof why);
	if (root < 0)
		return false;
	/* Quarantined reports are no crashes to count: their directory stays closed. */
	int dirs[PM_SDIR_COUNT] = { -1, -1, -1 };
	dirs[PM_SDIR_PENDING] = openat(root, "pending", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dirs[PM_SDIR_SENT] = openat(root, "sent", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool loop = loop_in(root, dirs, app);
	for (pm_sdir d = 0; d < PM_SDIR_COUNT; d++)
		if (dirs[d] >= 0)
			close(dirs[d]);
	close(root);
	return loop;
}
