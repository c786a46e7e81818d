/*
 * core_report.c — the engine's side of core_report.h: the crash's core
 * captured (core_capture.h) in the sandboxed analysis child, with the
 * engine's file reads answered by what root gathered (as_files_serve):
 * /proc/<pid>'s and the OS's files from the snapshot, a mapped file from
 * the core's descriptors, a debug file below /usr/lib/debug's descriptor;
 * nothing else exists for it.  Written into the directory the handler
 * chose, unless storm control (delivery/store, docs/store.md) counts it
 * instead: of its crash group's reports there it keeps the first and the
 * latest, and drops (counted) the ones between.  NOT AS-safe.
 */
#include "core_report.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "as_memory.h"
#include "core_capture.h"
#include "group.h"
#include "store.h"

#define DEBUG_DIR "/usr/lib/debug/"

static const char *
served_bytes(void *ctx, const char *path, size_t *len)
{
	const pm_core_target *t = ctx;
	return pmi_snapshot_bytes(t->snap, path, len);
}

static int
served_open(void *ctx, const char *path)
{
	const pm_core_target *t = ctx;
	size_t k = strlen(DEBUG_DIR);
	if (strncmp(path, DEBUG_DIR, k) == 0)
		return t->debug_fd >= 0
		               ? as_open_file(t->debug_fd, path + k, AS_OPEN_NO_LINKS | AS_OPEN_BENEATH | AS_OPEN_UNSERVED)
		               : -1;
	return pmi_core_open_mapped(t->core, path);
}

/* Storm control before the report is written (with its crash group computed
 * as the writer would): false when it is only counted; what it did in said. */
static bool
storm_admits(const pm_core_target *t, pm_report *r, int out_fd, char *said, size_t cap)
{
	if (t->groups_fd < 0 || !pmi_group_keep(r) || !r->signature)
		return true;
	pm_storm_policy p;
	pmi_storm_policy_text(&p, t->env->storm_keep);
	size_t dropped = 0;
	const char *app = r->header.process_name ? r->header.process_name : r->header.identifier;
	pm_storm_verdict v = pmi_storm_admit(out_fd, t->groups_fd, r->signature, t->crash_time.tv_sec, app, r->title, &p,
	                                     &dropped);
	if (v == PM_STORM_COUNT)
		snprintf(said, cap, "storm control counted it in crash group %s, whose first %u reports are kept", r->signature,
		         p.first);
	else if (dropped)
		snprintf(said, cap, "storm control: %zu earlier report%s of crash group %s counted, not kept (the first %u "
		         "and the latest %u are)", dropped, dropped == 1 ? "" : "s", r->signature, p.first, p.last);
	return v == PM_STORM_KEEP;
}

pm_err
pmi_core_report(const pm_core_target *t, int out_fd, char *why, size_t cap)
{
	if (!t->core) {
		snprintf(why, cap, "not written: the core could not be read");
		return PM_E_FORMAT;
	}
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/%d", t->args->pid);
	pm_core_facts f = {
		.exe = t->facts->exe,
		.proc = t->snap->proc ? proc : NULL,
		.app_id = t->env->app_id,
		.app_version = t->env->app_version,
		.start_time = t->facts->start_time,
		.time = t->crash_time,
		.this_machine = true,
		.source = "the kernel's core, by the system reporter",
	};
	as_file_server server = { served_bytes, served_open, (void *)t };
	as_files_serve(&server);
	pm_core_capture *cc;
	char what[512], dir[PATH_MAX + 16];
	pm_err e = pmi_core_capture(t->core, &f, &cc, what, sizeof what);
	if (e != PM_OK) {
		as_files_serve(NULL);
		snprintf(why, cap, "not written: %s", what);
		return e;
	}
	snprintf(dir, sizeof dir, "%s/pending", t->reports_dir);
	char storm[256] = "";
	bool ok = storm_admits(t, pmi_core_capture_report(cc), out_fd, storm, sizeof storm);
	if (ok)
		ok = pmi_core_capture_write(cc, out_fd, dir, why, cap);
	else
		snprintf(why, cap, "not written: %s", storm);
	size_t n = strlen(why);
	if (ok && storm[0] && n < cap)
		snprintf(why + n, cap - n, "; %s", storm);
	pmi_core_capture_free(cc);
	as_files_serve(NULL);
	return ok ? PM_OK : PM_E_IO;
}
