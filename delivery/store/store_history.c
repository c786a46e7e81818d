/*
 * store_history.c — the last delivered crashes, for crash-loop detection.
 *
 * A delivered report is deleted (unless keep_sent), yet the crash it
 * recorded still counts towards a crash loop: an app whose uploader works
 * would otherwise never see one.  <reports_dir>/history keeps one line per
 * delivered crash — "<time> <launch> <id> <app>" — the newest last, at most
 * PM_HISTORY_MAX of them.  Losing it costs only an undetected loop.
 */
#include "store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

enum { LINE_MAX_BYTES = 256 };

static const char history_name[] = "history";

static bool
parse_line(const char *line, pm_crash_rec *rec)
{
	int at = 0;
	memset(rec, 0, sizeof *rec);
	if (sscanf(line, "%" SCNd64 " %" SCNd64 " %63s %n", &rec->time, &rec->launch, rec->id, &at) != 3 || at == 0)
		return false;
	size_t n = strcspn(line + at, "\n");
	if (n == 0 || n >= sizeof rec->app || !pmi_store_valid_id(rec->id))
		return false;
	memcpy(rec->app, line + at, n);
	return true;
}

size_t
pmi_history_read(int root, pm_crash_rec *out, size_t cap)
{
	char *text;
	size_t len, n = 0;
	if (pmi_store_slurp(root, history_name, PM_HISTORY_MAX * LINE_MAX_BYTES, true, &text, &len, NULL) != PM_OK)
		return 0;
	for (char *line = text; *line && n < cap;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (parse_line(line, &out[n]))
			n++;
		if (!end)
			break;
		line = end + 1;
	}
	free(text);
	return n;
}

typedef struct history {
	pm_crash_rec rec[PM_HISTORY_MAX];
	size_t n;
} history;

static pm_err
fill_history(const void *ctx, pm_out *o)
{
	const history *h = ctx;
	for (size_t i = 0; i < h->n; i++) {
		pmi_out_i64(o, h->rec[i].time);
		pmi_out_ch(o, ' ');
		pmi_out_i64(o, h->rec[i].launch);
		pmi_out_ch(o, ' ');
		pmi_out_str(o, h->rec[i].id);
		pmi_out_ch(o, ' ');
		pmi_out_str(o, h->rec[i].app[0] ? h->rec[i].app : "?");
		pmi_out_ch(o, '\n');
	}
	return PM_OK;
}

void
pmi_history_add(int root, const pm_crash_rec *rec)
{
	history *h = malloc(sizeof *h);
	if (!h)
		return;
	h->n = pmi_history_read(root, h->rec, PM_HISTORY_MAX);
	if (h->n == PM_HISTORY_MAX) {
		memmove(h->rec, h->rec + 1, (PM_HISTORY_MAX - 1) * sizeof h->rec[0]);
		h->n--;
	}
	h->rec[h->n++] = *rec;
	pmi_store_write_file(root, history_name, fill_history, h);
	free(h);
}
