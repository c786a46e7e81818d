/*
 * store_quarantine.c — quarantining what cannot be read, reasons, and the
 * store's log line.
 *
 * Reasons come from readers and servers: they are kept to one printable
 * line of bounded length, so a reason file or a log line can neither grow
 * without bound nor carry control sequences to a terminal.
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"

void
pmi_store_set_reason(pm_sentry *e, const char *reason)
{
	size_t n = strnlen(reason, PM_REASON_MAX - 1);
	char *copy = malloc(n + 1);
	if (!copy)
		return;
	for (size_t i = 0; i < n; i++)
		copy[i] = (unsigned char)reason[i] < 0x20 || reason[i] == 0x7f ? ' ' : reason[i];
	while (n > 0 && copy[n - 1] == ' ')
		n--;
	copy[n] = '\0';
	free(e->reason_buf);
	e->reason_buf = copy;
	e->pub.reason = copy;
}

static pm_err
fill_reason(const void *ctx, pm_out *o)
{
	const pm_sentry *e = ctx;
	pmi_out_str(o, e->pub.reason);
	pmi_out_ch(o, '\n');
	return PM_OK;
}

pm_err
pmi_store_write_reason(pm_store *s, const pm_sentry *e)
{
	char name[PM_ID_MAX + 16];
	pmi_store_file_name(name, sizeof name, e->pub.id, PM_SK_REASON);
	return pmi_store_write_file(s->dir[PM_SDIR_QUARANTINE], name, fill_reason, e);
}

void
pmi_store_quarantine_group(pm_store *s, const pm_sgroup *g, const char *reason)
{
	pm_err rc = pmi_store_move_report(s, PM_SDIR_PENDING, PM_SDIR_QUARANTINE, g->id);
	if (rc == PM_E_INVAL)
		pmi_store_log("report %s (%s) left in pending/: quarantine/ already holds a report of that id",
		             g->id, reason);
	if (rc != PM_OK)
		return;
	pm_sentry *e = pmi_store_add(s, PM_SDIR_QUARANTINE, g, PM_STATE_QUARANTINED);
	if (!e)
		return;
	pmi_store_set_reason(e, reason);
	pmi_store_write_reason(s, e);
	pmi_store_log("quarantined report %s (%s)", g->id, e->pub.reason ? e->pub.reason : "");
}
