/*
 * store_salvage.c — torn reports: wait for a live writer, salvage what
 * reads, quarantine what does not.
 *
 * The crash handler writes the text, then the JSON twin, each to a hidden
 * temporary that is renamed when whole.  A writer killed on the way leaves
 * a temporary (or a text without its twin).  The text reader takes a
 * truncated text as far as it goes; a torn JSON is closed after its last
 * whole value.  What is salvaged is kept as a partial report: its JSON twin
 * rewritten from the salvaged model without "complete" (that marks it
 * partial from then on), the text kept when it reads, rendered otherwise.
 */
#include "store.h"
#include "text.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A writer is alive while its files are fresh and its process exists (or
 * could not be asked).  Old files have lost their writer, whoever it was:
 * that also covers a pid reused since the crash. */
static bool
writer_alive(int64_t pid, int64_t mtime, int64_t now)
{
	if (now - mtime > PM_STALE_SECONDS)
		return false;
	if (pid <= 0 || pid > (int64_t)INT_MAX)
		return true;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static pm_err
fill_json(const void *ctx, pm_out *o)
{
	return pmi_write_json(ctx, o);
}

static pm_err
fill_text(const void *ctx, pm_out *o)
{
	return pmi_write_text(ctx, o);
}

/* The source of each twin: the renamed file if there is one, else the temporary. */
typedef struct sources {
	pm_skind kind[2];       /* [0] text, [1] JSON; PM_SK_COUNT when absent */
	char name[2][PM_ID_MAX + 16];
	pm_report r[2];
	pm_read_error err[2];
	pm_err rc[2];
} sources;

static void
read_sources(pm_store *s, const pm_sgroup *g, sources *src)
{
	static const pm_skind whole[2] = { PM_SK_CRASH, PM_SK_JSON };
	static const pm_skind torn[2] = { PM_SK_CRASH_TMP, PM_SK_JSON_TMP };
	for (int i = 0; i < 2; i++) {
		pm_report_init(&src->r[i]);
		src->err[i] = (pm_read_error){ 0 };
		src->kind[i] = g->f[whole[i]] ? whole[i] : g->f[torn[i]] ? torn[i] : PM_SK_COUNT;
		if (src->kind[i] == PM_SK_COUNT) {
			src->rc[i] = PM_E_NOTFOUND;
			snprintf(src->err[i].message, sizeof src->err[i].message, "absent");
			continue;
		}
		pmi_store_file_name(src->name[i], sizeof src->name[i], g->id, src->kind[i]);
		src->rc[i] = pmi_store_read_torn(s->dir[PM_SDIR_PENDING], src->name[i], i == 1,
		                                PM_READ_MAX_BYTES, false, &src->r[i], &src->err[i]);
	}
}

static void
unlink_kind(pm_store *s, const char *id, pm_skind kind)
{
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, id, kind);
	pmi_store_unlink(s->dir[PM_SDIR_PENDING], name);
}

/* The rewritten files keep the time the report was written: a report with no
 * crash time keeps its place in the delivery order and under the caps. */
static void
keep_written_time(int dfd, const pm_sgroup *g)
{
	const struct timespec t = { .tv_sec = (time_t)pmi_sgroup_first_mtime(g) };
	const struct timespec times[2] = { t, t };
	char name[PM_ID_MAX + 16];
	for (pm_skind k = PM_SK_CRASH; k <= PM_SK_JSON; k++) {
		pmi_store_file_name(name, sizeof name, g->id, k);
		utimensat(dfd, name, times, AT_SYMLINK_NOFOLLOW);
	}
}

/*
 * Rewrite the report as whole files holding what was salvaged from `from`.
 * When the twin cannot be written (a full disk), a text that reads is kept
 * alone and listed all the same: it loads through the text reader, and the
 * next open tries the twin again.
 */
static void
keep_partial(pm_store *s, const pm_sgroup *g, sources *src, int from)
{
	int dfd = s->dir[PM_SDIR_PENDING];
	pm_report *m = &src->r[from];
	m->complete = false;
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, g->id, PM_SK_JSON);
	bool twin_ok = pmi_store_write_file(dfd, name, fill_json, m) == PM_OK;
	int why = errno;
	bool text_ok = src->rc[0] == PM_OK;
	if (!twin_ok && !text_ok)
		return; /* nothing whole to list: the next open tries again */
	pmi_store_file_name(name, sizeof name, g->id, PM_SK_CRASH);
	if (text_ok && src->kind[0] == PM_SK_CRASH_TMP)
		pmi_store_move(dfd, src->name[0], dfd, name);
	else if (!text_ok)
		pmi_store_write_file(dfd, name, fill_text, m);
	unlink_kind(s, g->id, PM_SK_CRASH_TMP);
	unlink_kind(s, g->id, PM_SK_JSON_TMP);
	keep_written_time(dfd, g);
	pm_sentry *e = pmi_store_add(s, PM_SDIR_PENDING, g, PM_STATE_PARTIAL);
	if (e)
		pmi_store_summarize(e, m);
	if (twin_ok)
		return;
	char reason[160];
	snprintf(reason, sizeof reason, "text only: its JSON twin could not be written (%s)", strerror(why));
	if (e)
		pmi_store_set_reason(e, reason);
	pmi_store_log("report %s kept as %s", g->id, reason);
}

void
pmi_store_look_torn(pm_store *s, const pm_sgroup *g, const pm_report *m, const char *reason)
{
	pm_sentry *e = pmi_store_add(s, PM_SDIR_PENDING, g, PM_STATE_PARTIAL);
	if (!e)
		return;
	if (m)
		pmi_store_summarize(e, m);
	pmi_store_set_reason(e, reason);
}

void
pmi_store_salvage(pm_store *s, const pm_sgroup *g)
{
	sources src;
	read_sources(s, g, &src);
	/* The text is written first and whole when the twin is torn: prefer it. */
	int from = src.rc[0] == PM_OK ? 0 : src.rc[1] == PM_OK ? 1 : -1;
	int64_t pid = from >= 0 ? src.r[from].header.pid : -1;
	/* <id>.json is renamed into place last, whole: once it is there, nobody writes. */
	if (!g->f[PM_SK_JSON] && writer_alive(pid, pmi_sgroup_mtime(g), s->now)) {
		/* Still being written: not listed until it is whole or its writer is gone. */
	} else if (s->read_only) {
		pmi_store_look_torn(s, g, from >= 0 ? &src.r[from] : NULL,
		                   from >= 0 ? "torn: salvaged at the next opening that may write"
		                             : "torn, nothing readable: quarantined at the next opening that may write");
	} else if (from >= 0) {
		keep_partial(s, g, &src, from);
	} else {
		char reason[2 * sizeof src.err[0].message + 64];
		snprintf(reason, sizeof reason, "torn report, nothing readable (text: %s; JSON: %s)",
		         src.err[0].message, src.err[1].message);
		pmi_store_quarantine_group(s, g, reason);
	}
	pm_report_free(&src.r[0]);
	pm_report_free(&src.r[1]);
}
