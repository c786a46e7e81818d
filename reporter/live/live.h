/*
 * live.h — the door of reporter/live: reports of a process that goes on,
 * snapshots and hang reports.  NOT AS-safe (ordinary threads).
 */
#ifndef PM_REPORTER_LIVE_H
#define PM_REPORTER_LIVE_H

#include "postmortem-tools.h"

/* Writes the exception block (and marks a thread) of a live report. */
typedef void pm_live_fill_fn(pm_report *r, void *ctx);

/* The files of a live report. */
typedef struct pm_live_files {
	char crash_path[4096];
	char json_path[4096];
	char minidump_path[4096]; /* "" when minidumps are off */
	unsigned generation;     /* as_g.capture_generation of the capture */
} pm_live_files;

/*
 * Stop every other thread, capture them all into a report of `kind`, let
 * `fill` describe it, write both files (and the minidump), and let the threads go on.
 * 0, or -1 with errno (EINVAL: not installed; EBUSY: a crash or another
 * capture is in progress; EIO: the files could not be written).
 */
int pmi_live_report(pm_kind kind, pm_live_fill_fn *fill, void *ctx, pm_live_files *files);
/* Change the last live report with `fill` and write its files again, in
 * place.  -1 with ESTALE when another capture has happened since. */
int pmi_live_rewrite(const pm_live_files *files, pm_live_fill_fn *fill, void *ctx);
/* Index of thread tid in r, or -1. */
int32_t pmi_live_thread_index(const pm_report *r, int tid);
/* Free what live backtraces keep between calls (at pm_uninstall). */
void pmi_live_teardown(void);

#endif
