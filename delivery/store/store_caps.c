/*
 * store_caps.c — keep each store directory within max_pending reports and
 * max_bytes, dropping the oldest first and saying so on stderr.
 *
 * quarantine/ and sent/ are held to the same caps as pending/: nothing in
 * the reports directory grows without bound.
 */
#include "store.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int
oldest_first(const void *a, const void *b)
{
	const pm_sentry *x = *(const pm_sentry *const *)a, *y = *(const pm_sentry *const *)b;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->pub.id, y->pub.id);
}

static void
cap_dir(pm_store *s, pm_sdir d, pm_sentry **list)
{
	size_t n = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (pmi_store_state_dir(s->v[i].pub.state) != d || s->v[i].dropped)
			continue;
		list[n++] = &s->v[i];
		bytes += s->v[i].pub.bytes;
	}
	if (n)
		qsort(list, n, sizeof *list, oldest_first);
	for (size_t i = 0; i < n && (n - i > s->max_pending || bytes > s->max_bytes); i++) {
		pm_sentry *e = list[i];
		if (n - i > s->max_pending)
			pmi_store_log("dropped report %s (%zu reports in %s/, over the cap of %" PRIu32 ")",
			             e->pub.id, n - i, pmi_sdir_names[d], s->max_pending);
		else
			pmi_store_log("dropped report %s (%" PRIu64 " bytes in %s/, over the cap of %" PRIu64 " bytes)",
			             e->pub.id, bytes, pmi_sdir_names[d], s->max_bytes);
		/* A crash dropped is still counted in its group (storm control's record). */
		pmi_store_count_dropped(s, d, &e, 1);
		pmi_store_remove(s, d, e->pub.id);
		e->dropped = true;
		bytes -= e->pub.bytes;
	}
}

static void
compact(pm_store *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].dropped)
			free(s->v[i].reason_buf);
		else
			s->v[k++] = s->v[i];
	}
	s->n = k;
}

void
pmi_store_apply_caps(pm_store *s)
{
	if (s->n == 0)
		return;
	pm_sentry **list = malloc(s->n * sizeof *list);
	/* Without memory the caps wait for the next open; the listing is still right. */
	for (pm_sdir d = 0; list && d < PM_SDIR_COUNT; d++)
		cap_dir(s, d, list);
	free(list);
	compact(s);
}
