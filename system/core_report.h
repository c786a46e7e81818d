/*
 * core_report.h — the seam between the system reporter's handler and the
 * capture engine (docs/system-reporter.md, "The engine's part"): the
 * handler decides where a crash's report goes and as whom, and hands the
 * engine everything it gathered; the engine writes the report.  NOT AS-safe.
 */
#ifndef PM_SYSTEM_CORE_REPORT_H
#define PM_SYSTEM_CORE_REPORT_H

#include <time.h>

#include "core.h"
#include "system.h"

/* Where a report goes (destination.c). */
typedef enum pm_dest_kind {
	PM_DEST_NONE = -1, /* none can be had */
	PM_DEST_APP,     /* the pending/ the process's own pm_install holds open */
	PM_DEST_OWN,     /* its user's reports directory, as pm_install would choose it */
	PM_DEST_SPOOL,   /* <system dir>/users/<uid>: a user without a home, or another mount namespace */
	PM_DEST_PRIVATE, /* <system dir>/private/<uid>, root's alone: set-user-ID, changed credentials */
} pm_dest_kind;

/* One crash, as the handler hands it to the engine. */
typedef struct pm_core_target {
	pm_core *core;              /* the notes (threads, registers, siginfo, auxv, NT_FILE) and the
	                             * ranges the stream kept; memory through pmi_core_mem_read(core, ...),
	                             * which falls back on /proc/<pid>/mem, then on the mapped files'
	                             * descriptors (map_files.c) */
	const pm_crash_args *args;  /* the kernel's arguments: pids, tid, signal, time, comm */
	const pm_proc_facts *facts; /* /proc/<pid>: credentials, executable, start time */
	const pm_proc_snapshot *snap; /* the bytes of /proc/<pid> and of the OS's files the engine reads */
	const pm_env_facts *env;    /* its environment's app id and version */
	pm_dest_kind dest;
	const char *reports_dir;    /* where the report goes (for messages) */
	struct timespec crash_time; /* when the handler started: the kernel starts it as the dump begins */
	int debug_fd;               /* /usr/lib/debug, for the debug files of the images' build ids; -1: none */
	int groups_fd;              /* the pending/.groups of out_fd: storm control applied before the report
	                             * is written (delivery/store); -1: none, every report written */
} pm_core_target;

/* Write the crash's report (.crash, .json, .dmp) into out_fd, with the
 * store's rules (docs/store.md: hidden temporary names with O_CREAT |
 * O_EXCL | O_NOFOLLOW, 0600, then renamed), with the capture engine over
 * the core (core_capture.h): every thread the core holds.  It opens no
 * path: /proc and the OS's files are the snapshot's bytes (served by path,
 * as_files_serve, and only when the process shares the handler's pid
 * namespace: its threads' numbers are then ours), the mapped files the
 * core's descriptors, debug files below debug_fd.  Runs in the sandboxed
 * analysis child (sandbox.h).  PM_OK when written; why says what happened
 * either way. */
pm_err pmi_core_report(const pm_core_target *t, int out_fd, char *why, size_t cap);

#endif
