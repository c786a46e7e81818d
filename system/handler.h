/*
 * handler.h — what the core handler's files share (handler.c runs the
 * steps): what root gathered of one crash, what its children say back, the
 * test pauses (test_pauses.c), the child that finds the report's place as
 * the user (dest_child.c), the sandboxed analysis child (analysis_child.c),
 * the per-uid slots (slots.c) and the spools' caps (spool_caps.c).
 * NOT AS-safe.
 */
#ifndef PM_SYSTEM_HANDLER_H
#define PM_SYSTEM_HANDLER_H

#include <time.h>

#include "core.h"
#include "destination.h"
#include "map_files.h"
#include "system.h"

enum {
	PM_SAID_MSG = 1024,
	/* What a child's exit status says. */
	PM_R_WRITTEN = 0,
	PM_R_ALREADY = 10,        /* the process reported itself */
	PM_R_SPOOL = 11,          /* no home: the per-uid spool */
	PM_R_REFUSED = 12,        /* the directory cannot be used */
	PM_R_NOT_WRITTEN = 13,
	PM_R_SANDBOX = 14,        /* the analysis could not be sealed: nothing ran */
	PM_R_FULL = 15,           /* the spool is at its cap: nothing written */
	PM_R_CREDS = 125,         /* the child could not take its credentials (pmi_child_run's) */
	PM_NOBODY = 65534,        /* the analysis's identity when enable recorded none */
};

/* Pauses the system tests ask for (tests/system/test_core_sandbox.py,
 * test_core_bounds.py): the file <sysdir>/test-pause, root's and written
 * by root alone, lines of "<step> <ms>" (and "max-bytes <n>", a cap they
 * can reach in seconds).  The kernel gives the handler no environment to
 * say it in. */
typedef struct pm_pauses {
	int proc_ms;              /* before /proc/<pid> is pinned */
	int core_ms;              /* after the core's notes are read, before the report */
	int destination_ms;       /* in the child that finds the report's place, as the user */
	int analysis_ms;          /* in the analysis child, sealed, before the engine */
	int previous_ms;          /* the previous pipe handler's deadline, instead of PM_PREVIOUS_MS (0: that) */
	uint64_t max_bytes;       /* the stream's byte cap, instead of PM_CORE_STREAM_MAX_BYTES (0: that) */
} pm_pauses;
pm_pauses pmi_pauses_read(const char *sysdir);
void pmi_pause(int ms);

/* What root gathered of one crash, for its children. */
typedef struct pm_crash {
	pm_crash_args a;
	pm_proc pin;
	pm_proc_facts f;
	pm_proc_snapshot snap;
	pm_map_files mf;
	int mem;                  /* /proc/<pid>/mem, or -1 */
	int debug_fd;             /* /usr/lib/debug, or -1 */
	pm_core *core;
	const char *sysdir;
	uid_t ana_uid;            /* the analysis's own identity */
	gid_t ana_gid;
	pm_pauses pause;
	struct timespec started;  /* the crash's time, as near as the handler knows it */
} pm_crash;

/* What a child says back, in memory it shares with the handler. */
typedef struct pm_said {
	char msg[PM_SAID_MSG];
	char dir[PATH_MAX];       /* the reports directory found */
	pm_dest_kind kind;
} pm_said;
/* What a child wrote, as strings however it ended (a child is not trusted to end them). */
void pmi_said_ends(pm_said *o);
/* o->msg for a child that did not say (rc < 0: killed, died; PM_R_CREDS); rc. */
int pmi_child_failed(pm_said *o, int rc, bool timed_out);

/* The report's place and its pending/ (-1: none, o->msg says why): the
 * private spool (root's), else found by a child running as the process's
 * user (dest_child.c), which hands back the directory's descriptor.
 * *asked: where root asked for it (the child's word, o->kind, only names
 * it); *reason: why a spool, or NULL. */
int pmi_place_find(pm_crash *c, pm_said *o, const char **reason, pm_dest_kind *asked);
/* dir's pending/ (the reports directory made as pm_install makes it); -1 with msg set. */
int pmi_pending_open(const char *dir, char *msg);

/* The analysis of c into pending (sandboxed, analysis_child.c): as the
 * user straight into pending when as_user, else as the analysis identity
 * into a staging directory root then copies from.  o->msg says what came
 * of it; its peak memory. */
long pmi_analysis_run(pm_crash *c, int pending, bool as_user, pm_said *o);

/* At most this many reports of one uid are made at once (slots.c); a
 * crash past them serves the previous handler for at most
 * PM_SLOTLESS_MS in all.  The previous pipe handler is killed (its process
 * group) PM_PREVIOUS_MS after its input ends. */
enum { PM_SLOTS_PER_UID = 4, PM_SLOT_FULL = -1, PM_SLOT_NONE = -2 };
enum { PM_SLOTLESS_MS = 10000, PM_PREVIOUS_MS = 60000 };
/* One of uid's report slots, held by this process (and its descriptor's
 * copies) until it closes the descriptor or ends: the descriptor; PM_SLOT_FULL when every one is
 * held; PM_SLOT_NONE (why says) when the slots' directory below sysdir is
 * not root's alone. */
int pmi_slot_take(const char *sysdir, uint32_t uid, char *why, size_t cap);
/* Count a crash of uid that found no slot; how many there were since its last report, this one included. */
uint64_t pmi_slot_count_over(const char *sysdir, uint32_t uid);
/* How many crashes of uid found no slot since its last report; the count reset. */
uint64_t pmi_slot_take_over(const char *sysdir, uint32_t uid);

/* Each uid's per-user and private spools hold at most this many reports
 * and bytes (spool_caps.c): a spool at either gets no more. */
enum { PM_SPOOL_MAX_REPORTS = 100, PM_SPOOL_MAX_BYTES = 64 << 20 };
/* The spool whose pending/ is pending is at a cap (or cannot be looked at): true, why says. */
bool pmi_spool_full(int pending, char *why, size_t cap);

#endif
