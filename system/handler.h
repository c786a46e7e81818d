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
	bool deliver_private;     /* reports root keeps are delivered (enable --dsn --upload-private) */
} pm_crash;

/* What a child says back, in memory it shares with the handler. */
typedef struct pm_said {
	char msg[PM_SAID_MSG];
	char dir[PATH_MAX];       /* the reports directory found, as messages name it */
	char reports[PATH_MAX];   /* its path, for its uploader ("": unknown) */
	pm_dest_kind kind;
} pm_said;
/* What a child wrote, as strings however it ended (a child is not trusted to end them). */
void pmi_said_ends(pm_said *o);
/* o->msg for a child that did not say (rc < 0: killed, died; PM_R_CREDS); rc. */
int pmi_child_failed(pm_said *o, int rc, bool timed_out);

/* Who the analysis is, and where its files go. */
typedef enum pm_analysis_as {
	PM_ANALYSIS_AS_USER,      /* the user, straight into the user's pending/ */
	PM_ANALYSIS_AS_IDENTITY,  /* the analysis identity, straight into its own (the private spool root delivers) */
	PM_ANALYSIS_AS_STAGED,    /* the analysis identity, into a staging directory root copies into pending */
} pm_analysis_as;

/* The report's place and its pending/ (-1: none, o->msg says why): the
 * private spool (root's), else found by a child running as the process's
 * user (dest_child.c), which hands back the directory's descriptor; a
 * report root keeps, when the machine delivers those, the private spool
 * the analysis identity owns (opened as that identity).  *asked: where
 * root asked for it (the child's word, o->kind, only names it); *reason:
 * why a spool, or NULL; *as: who writes it. */
int pmi_place_find(pm_crash *c, pm_said *o, const char **reason, pm_dest_kind *asked, pm_analysis_as *as);
/* dir's pending/ (the reports directory made as pm_install makes it); -1 with msg set. */
int pmi_pending_open(const char *dir, char *msg);

/* The analysis of c into pending (sandboxed, analysis_child.c), after
 * storm control where it writes straight into pending.  o->msg says what
 * came of it; *peak_kib, its peak memory.  PM_R_WRITTEN when the report
 * landed, else another PM_R_ or -1. */
int pmi_analysis_run(pm_crash *c, int pending, pm_analysis_as as, pm_said *o, long *peak_kib);

/* The uploader beside this handler (upload_child.c), root's alone: an
 * O_PATH descriptor, or -1 (why says). */
int pmi_uploader_open(char *why, size_t cap);
/* The report just written (report: where, as the analysis said it) delivered
 * at once: postmortem-uploader started for its directory by a child that is
 * the directory's owner (the user; the analysis identity for the private
 * spool root delivers), to the process's own destination or the machine's
 * (st: NULL when the state did not read); nothing for a report root keeps.
 * Called once the core's pipe and the slot are let go; waits for the
 * child, never for the uploader.  said: what came of it ("" when nothing
 * was to be sent). */
void pmi_upload_start(pm_crash *c, const pm_system_state *st, const pm_said *report, pm_analysis_as as, char *said,
                      size_t cap);

/* At most this many reports of one uid are made at once (slots.c), and
 * this many more crashes wait for a slot, each up to PM_SLOT_WAIT_MS; a
 * crash past them serves the previous handler for at most
 * PM_SLOTLESS_MS in all, and only while fewer than PM_SLOTLESS_AT_ONCE
 * such crashes of the machine's do.  The previous pipe handler is killed
 * (its process group) PM_PREVIOUS_MS after its input ends.  A dump the
 * kernel goes on with PM_DUMP_END_MS after the core's pipe was closed is
 * ended (proc_pin.c). */
enum { PM_SLOTS_PER_UID = 4, PM_SLOT_WAITERS_PER_UID = 16, PM_SLOTLESS_AT_ONCE = 16, PM_SLOT_FULL = -1,
       PM_SLOT_NONE = -2 };
enum { PM_SLOT_WAIT_MS = 5000, PM_SLOTLESS_MS = 10000, PM_PREVIOUS_MS = 60000, PM_DUMP_END_MS = 2000 };
/* One of uid's report slots, held by this process (and its descriptor's
 * copies) until it closes the descriptor or ends: the descriptor, after a
 * wait (*waited_ms) when every one was held; PM_SLOT_FULL when none came
 * free in time, or the uid's waiters are all taken; PM_SLOT_NONE (why
 * says) when the slots' directory below sysdir is not root's alone. */
int pmi_slot_take(const char *sysdir, uint32_t uid, int64_t *waited_ms, char *why, size_t cap);
/* For a crash past its uid's slots: one of the machine's PM_SLOTLESS_AT_ONCE
 * places to serve the previous handler in, held as a slot is (no wait);
 * PM_SLOT_FULL when all are held, PM_SLOT_NONE (why says) as above. */
int pmi_slot_take_past(const char *sysdir, char *why, size_t cap);
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
