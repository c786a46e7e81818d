/*
 * store_storm.c — storm control (docs/store.md, "Storm control"): of the
 * pending reports of one crash group, the first few and the latest few are
 * kept and the others only counted in the group's record
 * (store_group_record.c), so that a crash loop leaves a bounded number of
 * files and `list --group` still counts every crash.
 *
 * One rule, two places.  pm_store_open applies it to what pending/ holds
 * (pmi_store_apply_storm), and the caps count what they drop the same way.
 * pmi_storm_admit applies it to a report about to be written, from a
 * process that holds nothing but pending/'s descriptor (the system
 * reporter, which writes as the crashed process's user): it reads only the
 * first bytes of each JSON twin there, where the writer puts the signature.
 *
 * A record is counted before the files it counts are removed, under the
 * records' lock, and only for reports still there once the lock is held:
 * a crash is never counted twice by two stores at once, and a store killed
 * between the two steps leaves a report counted and still there rather
 * than one gone and uncounted.
 */
#include "store.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "group.h"

enum { PREFIX_BYTES = 1024 };

void
pmi_storm_policy_text(pm_storm_policy *p, const char *keep)
{
	unsigned a, b;
	char tail;
	p->first = PM_DEFAULT_STORM_FIRST;
	p->last = PM_DEFAULT_STORM_LAST;
	if (keep && sscanf(keep, "%u,%u%c", &a, &b, &tail) == 2 && a <= UINT32_MAX && b <= UINT32_MAX) {
		p->first = a;
		p->last = b;
	}
}

void
pmi_storm_policy(pm_storm_policy *p, uint32_t first, uint32_t last)
{
	pmi_storm_policy_text(p, getenv("POSTMORTEM_STORM_KEEP"));
	p->first = first ? first : p->first;
	p->last = last ? last : p->last;
}

void
pmi_storm_window(size_t n, const pm_storm_policy *p, size_t *from, size_t *to)
{
	if ((uint64_t)n <= (uint64_t)p->first + p->last) {
		*from = *to = n;
		return;
	}
	*from = p->first;
	*to = n - p->last;
}

bool
pmi_store_prefix_signature(const char *data, size_t len, char out[PM_SIGNATURE_LEN + 1])
{
	static const char head[] = "{\n  \"schema\": \"postmortem\",\n";
	static const char key[] = "\n  \"signature\": \"";
	if (len > PREFIX_BYTES)
		len = PREFIX_BYTES;
	if (len < sizeof head - 1 || memcmp(data, head, sizeof head - 1) != 0)
		return false;
	const char *p = memmem(data, len, key, sizeof key - 1);
	if (!p || (size_t)(p - data) + sizeof key - 1 + PM_SIGNATURE_LEN + 1 > len)
		return false;
	p += sizeof key - 1;
	if (p[PM_SIGNATURE_LEN] != '"')
		return false;
	memcpy(out, p, PM_SIGNATURE_LEN);
	out[PM_SIGNATURE_LEN] = '\0';
	return pmi_group_signature_valid(out);
}

/* ---- at pm_store_open ------------------------------------------------------------- */

/* The records' directory, locked: -1 when it cannot be had now (the next open tries again). */
static int
lock_records(pm_store *s)
{
	int fd = pmi_groups_open(s->dir[PM_SDIR_PENDING], true);
	if (fd >= 0 && !pmi_groups_lock(fd)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		pmi_store_log("storm control: cannot use %s/pending/%s now; reports are kept", s->root_path,
		              PM_GROUPS_DIR);
	return fd;
}

static void
add_entry(pm_group_record *rec, bool sent, const pm_sentry *e)
{
	pmi_group_record_add(rec, sent, e->pub.time ? e->pub.time : e->order, e->pub.app, e->pub.title);
}

size_t
pmi_store_count_dropped(pm_store *s, pm_sdir d, pm_sentry *const *v, size_t n)
{
	if (n == 0 || !pmi_group_signature_valid(v[0]->pub.signature) || d == PM_SDIR_QUARANTINE)
		return 0;
	int groups = lock_records(s);
	if (groups < 0)
		return 0;
	pm_group_record rec;
	pmi_group_record_read(groups, v[0]->pub.signature, &rec);
	size_t counted = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pmi_store_holds_report(s->dir[d], v[i]->pub.id))
			continue; /* gone since the listing: whoever took it answers for it */
		add_entry(&rec, d == PM_SDIR_SENT, v[i]);
		v[i]->counted = true;
		counted++;
	}
	if (counted && pmi_group_record_write(groups, &rec) != PM_OK) {
		for (size_t i = 0; i < n; i++)
			v[i]->counted = false;
		counted = 0;
	}
	close(groups); /* and its lock */
	return counted;
}

void
pmi_store_count_sent(pm_store *s, const pm_sentry *e)
{
	if (!pmi_group_signature_valid(e->pub.signature))
		return;
	size_t i = 0;
	while (i < s->sent_n && strcmp(s->sent[i].signature, e->pub.signature) != 0)
		i++;
	if (i == s->sent_n) {
		if (!pmi_grow((void **)&s->sent, &s->sent_cap, s->sent_n + 1, sizeof *s->sent))
			return; /* uncounted here: the server has it */
		memset(&s->sent[i], 0, sizeof s->sent[i]);
		memcpy(s->sent[i].signature, e->pub.signature, PM_SIGNATURE_LEN + 1);
		s->sent_n++;
	}
	add_entry(&s->sent[i], true, e);
}

void
pmi_store_flush_sent(pm_store *s)
{
	int groups = s->sent_n ? lock_records(s) : -1;
	for (size_t i = 0; groups >= 0 && i < s->sent_n; i++) {
		const pm_group_record *add = &s->sent[i];
		pm_group_record rec;
		pmi_group_record_read(groups, add->signature, &rec);
		rec.sent = rec.sent + add->sent;
		if (!rec.first || (add->first && add->first < rec.first))
			rec.first = add->first;
		if (add->last > rec.last)
			rec.last = add->last;
		memcpy(rec.app, add->app, sizeof rec.app);
		memcpy(rec.title, add->title, sizeof rec.title);
		pmi_group_record_write(groups, &rec);
	}
	if (groups >= 0)
		close(groups);
	free(s->sent);
	s->sent = NULL;
	s->sent_n = s->sent_cap = 0;
}

bool
pmi_store_group_untold(pm_store *s, const char *signature, pm_group_record *rec)
{
	int groups = pmi_group_signature_valid(signature) && s->dir[PM_SDIR_PENDING] >= 0
	                     ? pmi_groups_open(s->dir[PM_SDIR_PENDING], false)
	                     : -1;
	if (groups < 0)
		return false;
	pmi_group_record_read(groups, signature, rec);
	close(groups);
	return rec->dropped > rec->told;
}

void
pmi_store_group_told(pm_store *s, const char *signature, uint64_t n)
{
	if (s->read_only || n == 0)
		return;
	int groups = lock_records(s);
	if (groups < 0)
		return;
	pm_group_record rec;
	pmi_group_record_read(groups, signature, &rec);
	rec.told = rec.dropped - rec.told < n ? rec.dropped : rec.told + n;
	pmi_group_record_write(groups, &rec);
	close(groups);
}

static int
by_group(const void *a, const void *b)
{
	const pm_sentry *x = *(const pm_sentry *const *)a, *y = *(const pm_sentry *const *)b;
	int c = strcmp(x->pub.signature, y->pub.signature);
	if (c)
		return c;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->pub.id, y->pub.id);
}

/* One group's reports beyond the window: counted, then removed. */
static void
drop_middle(pm_store *s, pm_sentry **v, size_t n)
{
	size_t from, to;
	pmi_storm_window(n, &s->storm, &from, &to);
	if (from == to || pmi_store_count_dropped(s, PM_SDIR_PENDING, v + from, to - from) == 0)
		return;
	size_t dropped = 0;
	for (size_t i = from; i < to; i++) {
		if (!v[i]->counted || pmi_store_remove(s, PM_SDIR_PENDING, v[i]->pub.id) == PM_E_IO)
			continue;
		v[i]->dropped = true;
		dropped++;
	}
	pmi_store_log("storm control: %zu reports of crash group %s (%s) counted, not kept (the first %u and "
	              "the latest %u are)",
	              dropped, v[0]->pub.signature, v[0]->pub.title, s->storm.first, s->storm.last);
}

void
pmi_store_apply_storm(pm_store *s)
{
	size_t n = 0;
	pm_sentry **v = s->n ? malloc(s->n * sizeof *v) : NULL;
	if (!v)
		return; /* nothing to do, or the next open does it */
	for (size_t i = 0; i < s->n; i++)
		if (pmi_store_state_dir(s->v[i].pub.state) == PM_SDIR_PENDING && s->v[i].pub.signature[0])
			v[n++] = &s->v[i];
	if (n)
		qsort(v, n, sizeof *v, by_group);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(v[j]->pub.signature, v[i]->pub.signature) == 0; j++)
			;
		drop_middle(s, v + i, j - i);
	}
	free(v);
}

/* ---- before a report is written --------------------------------------------------- */

typedef struct member {
	char id[PM_ID_MAX];
	int64_t mtime;
	bool counted;
} member;

static int
oldest_first(const void *a, const void *b)
{
	const member *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The reports of `signature` pending/ holds, by the signature at the top of their twins. */
static member *
members(int pending_fd, const char *signature, size_t *count)
{
	pm_sfile_list l = { 0 };
	member *m = NULL;
	size_t n = 0, cap = 0;
	*count = 0;
	if (pmi_store_list(pending_fd, PM_SDIR_PENDING, INT64_MIN, &l) != PM_OK) {
		free(l.v);
		return NULL;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].kind != PM_SK_JSON || !l.v[i].regular)
			continue;
		char name[PM_ID_MAX + 16], *data, sig[PM_SIGNATURE_LEN + 1];
		size_t len;
		pmi_store_file_name(name, sizeof name, l.v[i].id, PM_SK_JSON);
		if (pmi_store_slurp(pending_fd, name, PREFIX_BYTES, true, &data, &len, NULL) != PM_OK)
			continue;
		bool same = pmi_store_prefix_signature(data, len, sig) && strcmp(sig, signature) == 0;
		free(data);
		if (!same || !pmi_grow((void **)&m, &cap, n + 1, sizeof *m))
			continue;
		snprintf(m[n].id, sizeof m[n].id, "%s", l.v[i].id);
		m[n].counted = false;
		m[n++].mtime = l.v[i].mtime;
	}
	free(l.v);
	if (n)
		qsort(m, n, sizeof *m, oldest_first);
	*count = n;
	return m;
}

pm_storm_verdict
pmi_storm_admit(int pending_fd, int groups_fd, const char *signature, int64_t time, const char *app,
                const char *title, const pm_storm_policy *p, size_t *dropped)
{
	size_t none;
	dropped = dropped ? dropped : &none;
	*dropped = 0;
	if (!pmi_group_signature_valid(signature))
		return PM_STORM_KEEP;
	int groups = groups_fd >= 0 ? groups_fd : pmi_groups_open(pending_fd, true);
	if (groups < 0)
		return PM_STORM_KEEP;
	if (!pmi_groups_lock(groups)) {
		if (groups != groups_fd)
			close(groups);
		return PM_STORM_KEEP;
	}
	size_t n, from, to;
	member *m = members(pending_fd, signature, &n);
	/* The new report is the latest of n + 1. */
	pmi_storm_window(n + 1, p, &from, &to);
	pm_storm_verdict verdict = from <= n && n < to ? PM_STORM_COUNT : PM_STORM_KEEP;
	if (to > n)
		to = n;
	if (from < to || verdict == PM_STORM_COUNT) {
		pm_group_record rec;
		pmi_group_record_read(groups, signature, &rec);
		size_t counted = 0;
		for (size_t i = from; i < to; i++)
			if (pmi_store_holds_report(pending_fd, m[i].id)) { /* gone since the listing: not ours to count */
				pmi_group_record_add(&rec, false, m[i].mtime, app, title);
				m[i].counted = true;
				counted++;
			}
		if (verdict == PM_STORM_COUNT)
			pmi_group_record_add(&rec, false, time, app, title);
		if ((counted || verdict == PM_STORM_COUNT) && pmi_group_record_write(groups, &rec) == PM_OK) {
			for (size_t i = from; i < to; i++)
				if (m[i].counted && pmi_store_remove_files(pending_fd, m[i].id) != PM_E_IO)
					(*dropped)++;
		} else {
			verdict = PM_STORM_KEEP; /* uncounted, it is kept: nothing is lost */
		}
	}
	free(m);
	if (groups != groups_fd)
		close(groups); /* and its lock */
	else
		flock(groups, LOCK_UN);
	return verdict;
}
