/*
 * store_files.c — a report's files as a whole: which directory a state
 * lives in, the entry of an id, removing a report's files and moving them
 * from one directory to another.  Shared by the public calls (store.c), the
 * quarantine, the caps and crash-loop detection.
 */
#include "store.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

pm_sdir
pmi_store_state_dir(pm_report_state st)
{
	return st == PM_STATE_QUARANTINED ? PM_SDIR_QUARANTINE : st == PM_STATE_SENT ? PM_SDIR_SENT : PM_SDIR_PENDING;
}

pm_sentry *
pmi_store_find(pm_store *s, const char *id)
{
	if (!s || !pmi_store_valid_id(id))
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].pub.id, id) == 0)
			return &s->v[i];
	return NULL;
}

bool
pmi_store_in_pending(const pm_store *s, const char *id)
{
	static const pm_skind kinds[] = { PM_SK_JSON, PM_SK_CRASH };
	struct stat st;
	char name[PM_ID_MAX + 16];
	for (size_t i = 0; s->dir[PM_SDIR_PENDING] >= 0 && i < sizeof kinds / sizeof kinds[0]; i++) {
		pmi_store_file_name(name, sizeof name, id, kinds[i]);
		if (fstatat(s->dir[PM_SDIR_PENDING], name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	}
	return false;
}

/* One file's outcome folded into its report's: one file found is found, a real error wins. */
static pm_err
fold(pm_err report, pm_err file)
{
	if (file == PM_OK)
		return report == PM_E_NOTFOUND ? PM_OK : report;
	return file == PM_E_NOTFOUND ? report : file;
}

pm_err
pmi_store_remove_files(int dfd, const char *id)
{
	static const pm_skind kinds[] = { PM_SK_CRASH, PM_SK_JSON, PM_SK_REASON, PM_SK_DMP, PM_SK_DMP_TMP };
	pm_err e = PM_E_NOTFOUND;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char name[PM_ID_MAX + 16];
		pmi_store_file_name(name, sizeof name, id, kinds[i]);
		e = fold(e, pmi_store_unlink(dfd, name));
	}
	return e;
}

pm_err
pmi_store_remove(pm_store *s, pm_sdir d, const char *id)
{
	return pmi_store_remove_files(s->dir[d], id);
}

bool
pmi_store_holds_report(int dfd, const char *id)
{
	static const pm_skind kinds[] = { PM_SK_CRASH, PM_SK_JSON };
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char name[PM_ID_MAX + 16];
		struct stat st;
		pmi_store_file_name(name, sizeof name, id, kinds[i]);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	}
	return false;
}

pm_err
pmi_store_move_report(pm_store *s, pm_sdir from, pm_sdir to, const char *id)
{
	/* Two reports of one id (a copied file, a hostile directory): neither
	 * replaces the other. */
	if (pmi_store_holds_report(s->dir[to], id))
		return PM_E_INVAL;
	/* Temporaries first, so a renamed file of the same report wins.  A torn
	 * minidump has no header yet: it is never moved, only removed. */
	static const pm_skind src[] = { PM_SK_CRASH_TMP, PM_SK_JSON_TMP, PM_SK_CRASH, PM_SK_JSON, PM_SK_DMP };
	static const pm_skind dst[] = { PM_SK_CRASH, PM_SK_JSON, PM_SK_CRASH, PM_SK_JSON, PM_SK_DMP };
	pm_err e = PM_E_NOTFOUND;
	for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
		char a[PM_ID_MAX + 16], b[PM_ID_MAX + 16];
		pmi_store_file_name(a, sizeof a, id, src[i]);
		pmi_store_file_name(b, sizeof b, id, dst[i]);
		e = fold(e, pmi_store_move(s->dir[from], a, s->dir[to], b));
	}
	return e;
}
