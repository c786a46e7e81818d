/*
 * sessions.h — release health inside the store (docs/store.md, "Sessions";
 * docs/sentry.md, "Sessions"): the runs file's records read
 * (session_read.c), what the system says of a run that ended without a word
 * (session_system.c, session_kmsg.c), a run closed into a session
 * (session_close.c), sessions as files (session_file.c) and in the store
 * (store_sessions.c).
 */
#ifndef PM_DELIVERY_SESSIONS_H
#define PM_DELIVERY_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "postmortem-tools.h"
#include "reports_dir.h"

/* "<app_id>@<version>", an Apple "1.4 (212)" as 1.4+212 (sentry_release.c): the release a
 * run's session and its crash's event are filed under; false when either is unknown ("???"
 * or empty) or it does not fit. */
enum { PMI_SENTRY_RELEASE_MAX = 400 };
bool pmi_sentry_release(const char *app_id, const char *version, char *out, size_t cap);

/* How a run's record says it ended. */
typedef enum pmi_run_end {
	PMI_RUN_RUNNING = 0,   /* no end line: still running, or ended without a word */
	PMI_RUN_EXIT,          /* end exit <code> <us> */
	PMI_RUN_SIGNAL,        /* end signal <n> <us> [<oom kills>] */
} pmi_run_end;

/* The latest time a session holds, in microseconds since the epoch (the year 2255): its
 * file keeps times as JSON numbers, doubles, exact up to 2^53. */
#define PMI_SESSION_US_MAX 9000000000000000LL
/* The largest pid a session holds (Linux's pid_max is at most 2^22). */
#define PMI_SESSION_PID_MAX (1 << 22)

/* A record of the runs file (base/session_record.h), as read. */
typedef struct pmi_run {
	int64_t pid;
	int64_t started_us;
	char app_id[256];
	char app_version[128];
	char exe[256];
	int64_t oom_start;         /* the cgroup's OOM kills at start, -1 unknown */
	char oom_file[256];
	pmi_run_end end;
	int end_value;             /* the exit code or the signal */
	int64_t end_us;
	int64_t oom_end;           /* at the end (`postmortem run`), -1 unknown */
} pmi_run;

/* Read a record (n bytes, NUL-padded).  False when it does not hold a whole start
 * (the magic line, pid and started): a writer killed inside its write, or damage. */
bool pmi_run_parse(const char *rec, size_t n, pmi_run *out);

/* ---- what the system says (session_system.c, session_kmsg.c) -------------------- */

/* An OOM kill the kernel logged. */
typedef struct pmi_oom_kill {
	int64_t pid;
	char comm[16];             /* the task's name as the kernel keeps it (15 bytes) */
	int64_t boot_us;           /* when: microseconds since boot (the log's clock) */
} pmi_oom_kill;

/* One /dev/kmsg record ("<prio>,<seq>,<us>,<flags>[,...];<message>" and continuation lines):
 * true, with *out filled, when it tells of the OOM killer ending a process. */
bool pmi_kmsg_oom(const char *rec, size_t n, pmi_oom_kill *out);

/* What one store opening knows of the system, read once and only when a run needs it. */
typedef struct pmi_system {
	int64_t now_us;            /* CLOCK_REALTIME */
	int64_t boot_real_us;      /* when this boot began, in CLOCK_REALTIME terms (CLOCK_BOOTTIME) */
	int64_t mono_real_us;      /* CLOCK_MONOTONIC's 0 in CLOCK_REALTIME terms: the kernel log's clock */
	char machine_id[33];       /* /etc/machine-id, "" when none: it goes into session ids */
	bool kmsg_read;
	pmi_oom_kill *kills;       /* what /dev/kmsg told, when it could be read */
	size_t kill_count;
} pmi_system;

void pmi_system_init(pmi_system *sys);
/* Every OOM kill the kernel's log still holds, into sys (session_kmsg.c; once). */
void pmi_kmsg_read(pmi_system *sys);
void pmi_system_free(pmi_system *sys);
/* The kernel log's OOM kill of the run, when it is there: its time (CLOCK_REALTIME us), else 0. */
int64_t pmi_system_oom_kill(pmi_system *sys, const pmi_run *run);

/* ---- a run closed into a session (session_close.c) ---------------------------------- */

/* The session of a run that is over: exited, crashed (a crash report of its pid written while
 * it ran, found among s's reports) or abnormal, and why when it can be told. */
void pmi_session_close(pm_store *s, const pmi_run *run, pmi_system *sys, pm_session *out);

/* ---- sessions as files (session_file.c) ----------------------------------------------- */

/* A session as its file in sessions/ holds it: JSON (malloc'd), NULL when out of memory. */
char *pmi_session_to_json(const pm_session *ss);
/* And back: false when text is not such a file. */
bool pmi_session_from_json(const char *text, size_t n, pm_session *out);
/* "<sid>.session" */
void pmi_session_file_name(const pm_session *ss, char *out, size_t cap);

/* ---- in the store (store_sessions.c) --------------------------------------------- */

/* Collect the runs that ended (writable: into sessions/, their records freed), load the
 * sessions waiting and sent, apply the caps. */
void pmi_store_sessions_load(pm_store *s);
void pmi_store_sessions_free(pm_store *s);
/* Session i was delivered (or, unversioned, never will be): into sessions/sent/. */
pm_err pmi_store_session_mark_sent(pm_store *s, size_t i);
/* The number of sessions waiting for delivery: pm_store_session_get's first ones. */
size_t pmi_store_sessions_waiting(const pm_store *s);
/* Whether waiting session i is still in sessions/: another uploader of the directory may
 * have delivered it since this store collected it. */
bool pmi_store_session_waits(const pm_store *s, size_t i);
/* Whether a run of pid still holds its record in the runs file below the reports directory
 * root: its process (or `postmortem run`, which records it) has not ended, and its session
 * cannot be collected yet. */
bool pmi_runs_held_by(int root, int64_t pid);

#endif
