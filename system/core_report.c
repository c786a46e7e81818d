/*
 * core_report.c — the engine's side of core_report.h: the crash's core
 * captured (core_capture.h) in the sandboxed analysis child, with the
 * engine's file reads answered by what root gathered (as_files_serve):
 * /proc/<pid>'s and the OS's files from the snapshot, a mapped file from
 * the core's descriptors, a debug file below /usr/lib/debug's descriptor;
 * nothing else exists for it.  Written into the directory the handler
 * chose.  NOT AS-safe.
 */
#include "core_report.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "as_memory.h"
#include "core_capture.h"

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
	bool ok = pmi_core_capture_write(cc, out_fd, dir, why, cap);
	pmi_core_capture_free(cc);
	as_files_serve(NULL);
	return ok ? PM_OK : PM_E_IO;
}
