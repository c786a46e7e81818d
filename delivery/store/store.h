/*
 * store.h — internals of the report store (docs/store.md).
 *
 * The store keeps one compact entry per report and never the reports
 * themselves: listing a thousand reports costs a thousand entries, and a
 * report is parsed only while it is looked at.  Every file is reached
 * through a directory descriptor with O_NOFOLLOW, so nothing planted in the
 * reports directory can send a read, write or rename elsewhere.
 */
#ifndef PM_DELIVERY_STORE_H
#define PM_DELIVERY_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* The three directories under the reports directory. */
typedef enum pm_sdir {
	PM_SDIR_PENDING = 0,
	PM_SDIR_QUARANTINE,
	PM_SDIR_SENT,
	PM_SDIR_COUNT,
} pm_sdir;

/* What a file in a store directory is, from its name alone. */
typedef enum pm_skind {
	PM_SK_CRASH = 0,  /* <id>.crash */
	PM_SK_JSON,       /* <id>.json */
	PM_SK_CRASH_TMP,  /* .<id>.crash.tmp: the crash handler is (or was) writing it */
	PM_SK_JSON_TMP,   /* .<id>.json.tmp */
	PM_SK_REASON,     /* <id>.reason: why it was quarantined */
	PM_SK_DMP,        /* <id>.dmp: the minidump, written after both report files */
	PM_SK_DMP_TMP,    /* .<id>.dmp.tmp: useless until renamed (its header is written last) */
	PM_SK_COUNT,
	PM_SK_STORE_TMP = PM_SK_COUNT, /* .<name>.store.tmp: the store's own write in progress */
	PM_SK_OTHER,      /* not ours: left alone */
} pm_skind;

enum {
	PM_ID_MAX = 64,
	/* A temporary file untouched this long has lost its writer, whoever it was. */
	PM_STALE_SECONDS = 60,
	PM_REASON_MAX = 1024,
	PM_DEFAULT_LOOP_COUNT = 3,
	PM_DEFAULT_LOOP_SECONDS = 10,
	PM_HISTORY_MAX = 32,     /* delivered crashes remembered for crash-loop detection */
	PM_DEFAULT_STORM_FIRST = 3, /* storm control: a crash group's first reports kept ... */
	PM_DEFAULT_STORM_LAST = 3,  /* ... and its latest */
	PM_GROUP_RECORDS_MAX = 1024, /* records in pending/.groups; those of the oldest crashes go first */
};

/* One file seen by a directory scan. */
typedef struct pm_sfile {
	char id[PM_ID_MAX];
	uint8_t kind;       /* pm_skind */
	uint8_t dir;        /* pm_sdir it was found in */
	bool regular;
	int64_t mtime;
	uint64_t size;
} pm_sfile;

/* The files of one report in one directory; NULL where absent. */
typedef struct pm_sgroup {
	const char *id;
	const pm_sfile *f[PM_SK_COUNT];
} pm_sgroup;

/* A store entry and what the store keeps beside it. */
typedef struct pm_sentry {
	pm_store_entry pub;  /* first member: pm_store_get hands out &pub */
	int64_t launch;      /* launch time in seconds, 0 when unknown */
	int64_t pid;         /* the reporting process, -1 when unknown: whose run it ended (sessions) */
	uint8_t kind;        /* pm_kind */
	int64_t order;       /* age for the caps and the listing: crash time, else when first written */
	char *reason_buf;    /* storage of pub.reason */
	bool dropped;        /* removed by storm control or the caps before the listing was built */
	bool counted;        /* counted in its crash group's record (storm control, caps) */
} pm_sentry;

/* Storm control's numbers (docs/store.md): a crash group's first and latest reports kept. */
typedef struct pm_storm_policy {
	uint32_t first, last;
} pm_storm_policy;

/* pending/.groups/<signature> (docs/store.md, "Storm control"). */
typedef struct pm_group_record {
	char signature[PM_SIGNATURE_LEN + 1];
	uint64_t dropped;        /* crashes whose report files storm control or the caps removed */
	uint64_t sent;           /* crashes delivered, their reports deleted then */
	uint64_t told;           /* of the dropped, how many a server was told of */
	int64_t first, last;     /* when the first and the last of them all crashed; 0 unknown */
	char app[128];           /* the app of the last */
	char title[PM_TITLE_MAX];
} pm_group_record;

struct pm_store {
	int root;                     /* the reports directory */
	int dir[PM_SDIR_COUNT];
	char root_path[PATH_MAX];
	uint32_t max_pending, loop_count, loop_seconds;
	uint64_t max_bytes;
	bool keep_sent;
	bool read_only;               /* pm_store_options.read_only */
	pm_storm_policy storm;
	pm_group_record *sent;        /* crashes delivered since open, by group, to count at close */
	size_t sent_n, sent_cap;
	int64_t now;                  /* wall clock at open, for staleness */
	pm_sentry *v;                 /* sorted by state; a snapshot until close */
	size_t n, cap;
	size_t start[PM_STATE_SENT + 2]; /* state s is v[start[s] .. start[s + 1]) */
	char path_buf[3][PATH_MAX];   /* pm_store_paths, pm_store_minidump_path */
	/* sessions (store_sessions.c, docs/store.md "Sessions") */
	int runs;                     /* the runs file, -1 when there is none */
	int session_dir[2];           /* sessions/ and sessions/sent/, -1 when absent */
	pm_session *sessions;         /* waiting, then sent; each oldest first */
	size_t session_n, session_cap, session_waiting;
	bool sessions_loaded;
};

/* A crash as crash-loop detection sees it. */
typedef struct pm_crash_rec {
	char id[PM_ID_MAX];
	char app[128];
	int64_t time, launch;   /* seconds; 0 when unknown */
} pm_crash_rec;

/* ---- store_fs.c: names and files ------------------------------------------------- */

extern const char *const pmi_sdir_names[PM_SDIR_COUNT];

/* The directory pm_store_open uses for `dir` (NULL: as documented in postmortem-tools.h). */
bool pmi_store_resolve_dir(const char *dir, char *out, size_t cap);
/* Open (creating it 0700 when missing) a directory below root, refusing
 * symlinks and directories not ours; -1 with a reason in why. */
int pmi_store_open_subdir(int root, const char *name, char *why, size_t cap);
/* A report id: 1..63 bytes of [A-Za-z0-9._-], not starting with '.'. */
bool pmi_store_valid_id(const char *id);
/* Classify a directory entry name; fills id for the report kinds. */
pm_skind pmi_store_parse_name(const char *name, char id[PM_ID_MAX]);
/* The file name of a report file of `kind`. */
void pmi_store_file_name(char *out, size_t cap, const char *id, pm_skind kind);
/* Read a regular file (never a symlink, FIFO or device) below dfd.  Larger
 * than max: PM_E_LIMIT, or with `prefix` its first max bytes.  *data is
 * NUL-terminated and malloc'd. */
pm_err pmi_store_slurp(int dfd, const char *name, size_t max, bool prefix, char **data, size_t *len,
                      pm_read_error *err);
/* Write a file below dfd through a hidden temporary, fsync and rename; 0600. */
typedef pm_err pm_store_fill_fn(const void *ctx, pm_out *o);
pm_err pmi_store_write_file(int dfd, const char *name, pm_store_fill_fn *fill, const void *ctx);
/* Rename between directories; PM_E_NOTFOUND when the source is gone. */
pm_err pmi_store_move(int from, const char *from_name, int to, const char *to_name);
/* Remove a file (or an empty directory planted under a report's name). */
pm_err pmi_store_unlink(int dfd, const char *name);
/* True for the hidden temporaries the crash handler writes through. */
bool pmi_store_kind_is_tmp(pm_skind kind);
/* Bytes of a report's text, JSON twin and minidump below dfd. */
uint64_t pmi_store_report_bytes(int dfd, const char *id);

/* ---- store_read.c: reports from files ---------------------------------------------- */

/* The whole JSON twin of id below dfd. */
pm_err pmi_store_read_json(int dfd, const char *id, pm_report *r, pm_read_error *err);
/* As much as a torn file gives: text read as far as it goes, or the JSON
 * prefix closed after its last whole value.  max and prefix as pmi_store_slurp. */
pm_err pmi_store_read_torn(int dfd, const char *name, bool json, size_t max, bool prefix, pm_report *r,
                          pm_read_error *err);
/* A loadable report of id below dfd: the JSON twin, else the text. */
pm_err pmi_store_read_any(int dfd, const char *id, pm_report *r, pm_read_error *err);
/* s (NULL: "") into out, cut to fit, control bytes as '?': one printable line. */
void pmi_store_copy_printable(char *out, size_t cap, const char *s);
/* Fill an entry's listing fields from a report. */
void pmi_store_summarize(pm_sentry *e, const pm_report *r);

/* ---- store_scan.c: what a directory holds ------------------------------------------- */

typedef struct pm_sfile_list {
	pm_sfile *v;
	size_t n, cap;
} pm_sfile_list;

/* Append the report files of directory d (descriptor dfd) to l, and remove
 * the store's own temporaries last changed before stale_before (0: none).
 * PM_E_NOMEM or PM_E_IO when the listing failed. */
pm_err pmi_store_list(int dfd, pm_sdir d, int64_t stale_before, pm_sfile_list *l);

typedef void pm_store_group_fn(pm_store *s, pm_sdir d, const pm_sgroup *g);
/* Call fn for each report id found in directory d, and clean up the store's
 * own stale temporaries.  Returns PM_E_NOMEM or PM_E_IO when the listing failed. */
pm_err pmi_store_scan_dir(pm_store *s, pm_sdir d, pm_store_group_fn *fn);
/* A new entry for the report g, now in directory d: its id, state, size and
 * file time (the listing facts come from pmi_store_summarize).  NULL when out of memory. */
pm_sentry *pmi_store_add(pm_store *s, pm_sdir d, const pm_sgroup *g, pm_report_state state);
/* The newest modification time among a group's files: when it was last written to. */
int64_t pmi_sgroup_mtime(const pm_sgroup *g);
/* The oldest: when the report was written, which salvaging a twin does not move. */
int64_t pmi_sgroup_first_mtime(const pm_sgroup *g);

/* ---- store_files.c: a report's files as a whole ----------------------------------- */

/* Where the reports of a state live. */
pm_sdir pmi_store_state_dir(pm_report_state st);
/* The entry of a report, or NULL. */
pm_sentry *pmi_store_find(pm_store *s, const char *id);
/* Whether report id still has a file in pending/: another uploader of the directory may
 * have delivered it since this store listed it. */
bool pmi_store_in_pending(const pm_store *s, const char *id);
/* Remove a report's files from d (and its reason); PM_E_NOTFOUND when none was there. */
pm_err pmi_store_remove(pm_store *s, pm_sdir d, const char *id);
/* The same below a directory descriptor. */
pm_err pmi_store_remove_files(int dfd, const char *id);
/* Does dfd hold a whole report file (text or twin) of this id? */
bool pmi_store_holds_report(int dfd, const char *id);
/* Move a report's files (the crash handler's temporaries too, under their
 * final names) from one directory to another; PM_E_NOTFOUND when none was there,
 * PM_E_INVAL (nothing moved) when the destination holds a report of that id. */
pm_err pmi_store_move_report(pm_store *s, pm_sdir from, pm_sdir to, const char *id);

/* ---- store_log.c ------------------------------------------------------------------ */

/* Log a line to stderr, prefixed "postmortem: ". */
void pmi_store_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- store_pending.c, store_salvage.c, store_quarantine.c -------------------------- */

/* Decide what one report in pending/ is: whole, partial, being written, torn. */
void pmi_store_take_pending(pm_store *s, pm_sdir d, const pm_sgroup *g);
/* One report in quarantine/ or sent/, listed as it is. */
void pmi_store_take_other(pm_store *s, pm_sdir d, const pm_sgroup *g);
/* A report in pending/ whose JSON twin does not read: salvage it as partial,
 * quarantine it, or leave it to the writer still working on it. */
void pmi_store_salvage(pm_store *s, const pm_sgroup *g);
/* Read-only opening: list a torn report as partial, as it is (m: what reads of it, or NULL). */
void pmi_store_look_torn(pm_store *s, const pm_sgroup *g, const pm_report *m, const char *reason);
/* Quarantine a report found unreadable in pending/, list it, log it. */
void pmi_store_quarantine_group(pm_store *s, const pm_sgroup *g, const char *reason);
/* Keep a sanitized, bounded copy of reason on e ... */
void pmi_store_set_reason(pm_sentry *e, const char *reason);
/* ... and write it to quarantine/<id>.reason. */
pm_err pmi_store_write_reason(pm_store *s, const pm_sentry *e);

/* ---- store_caps.c ------------------------------------------------------------------- */

/* Drop the oldest reports of each directory beyond the caps, logging each. */
void pmi_store_apply_caps(pm_store *s);

/* ---- store_group_record.c: what storm control counted of a crash group ------------- */

/* The records' directory, below pending/. */
#define PM_GROUPS_DIR ".groups"


/* Bytes as the record of `signature`: what reads is kept, the rest is empty.  False when
 * anything was off (torn, hostile, another signature's): then it is to be written again. */
bool pmi_group_record_parse(const char *data, size_t len, const char *signature, pm_group_record *rec);
/* The record as its file holds it (a pm_store_fill_fn over a pm_group_record). */
pm_err pmi_group_record_format(const void *rec, pm_out *o);
/* One more crash counted without its files: dropped, or delivered (`sent`). */
void pmi_group_record_add(pm_group_record *rec, bool sent, int64_t time, const char *app, const char *title);
/* pending/.groups below pending_fd, made 0700 with `create`; -1 (errno) when it is not there
 * or not ours alone. */
int pmi_groups_open(int pending_fd, bool create);
/* Its lock (flock), waited for at most 200 ms: false when another holds it that long. */
bool pmi_groups_lock(int groups_fd);
/* The record of signature (empty when there is none); false when it had to be rebuilt. */
bool pmi_group_record_read(int groups_fd, const char *signature, pm_group_record *rec);
pm_err pmi_group_record_write(int groups_fd, const pm_group_record *rec);

/* ---- store_storm.c: storm control --------------------------------------------------- */

/* The numbers for options first and last (0: $POSTMORTEM_STORM_KEEP, else the defaults). */
void pmi_storm_policy(pm_storm_policy *p, uint32_t first, uint32_t last);
/* The numbers a POSTMORTEM_STORM_KEEP value says ("FIRST,LATEST"; NULL or anything else: the
 * defaults), for a process whose environment is another's (the system reporter's analysis). */
void pmi_storm_policy_text(pm_storm_policy *p, const char *keep);
/* Of n reports of one group, oldest first, those storm control drops: [*from, *to). */
void pmi_storm_window(size_t n, const pm_storm_policy *p, size_t *from, size_t *to);
/* The signature written at the top of a JSON twin's first bytes (as this library writes it). */
bool pmi_store_prefix_signature(const char *data, size_t len, char out[PM_SIGNATURE_LEN + 1]);
/* Drop what storm control does not keep of each group in pending/, counted in its record. */
void pmi_store_apply_storm(pm_store *s);
/* pending/.groups tidied at a writable open (store_groups.c): every record that does not read
 * whole written again from what reads, the store's stale temporaries removed, at most
 * PM_GROUP_RECORDS_MAX records kept. */
void pmi_store_tidy_records(pm_store *s);
/* Count entries of one group, each still there in d, in its record (pending/: dropped,
 * sent/: sent), marking them `counted`, before their files go: how many. */
size_t pmi_store_count_dropped(pm_store *s, pm_sdir d, pm_sentry *const *v, size_t n);
/* A delivered report's files were deleted: its crash is counted as sent in its record, at
 * pm_store_close (pmi_store_flush_sent): one write per group, not per report. */
void pmi_store_count_sent(pm_store *s, const pm_sentry *e);
void pmi_store_flush_sent(pm_store *s);

/* The record of a group when some of its dropped crashes were not told to a server yet
 * (rec->dropped - rec->told of them). */
bool pmi_store_group_untold(pm_store *s, const char *signature, pm_group_record *rec);
/* A server was told of n more of a group's dropped crashes (upload, on its latest report). */
void pmi_store_group_told(pm_store *s, const char *signature, uint64_t n);

typedef enum pm_storm_verdict {
	PM_STORM_KEEP = 0,   /* write the report */
	PM_STORM_COUNT,      /* do not: it was counted in its group's record */
} pm_storm_verdict;

/*
 * Storm control for a report about to be written into the pending/ of pending_fd, from a
 * process that holds nothing else (the system reporter, as the crashed process's user):
 * with the reports of `signature` already there, by the signature at the top of their
 * twins, the rule above is applied to them and the new one, the latest.  Those it drops
 * are counted in the group's record and their files removed (*dropped: how many; may be
 * NULL); the answer says whether the new report's files are to be written (KEEP) or it was
 * only counted (COUNT, which happens only when the policy keeps no latest report).
 * groups_fd is pending/.groups opened by the caller (pmi_groups_open: a sandbox that may
 * not make it), or -1 to open it here.  Whatever cannot be done (no signature, the records
 * not ours or locked past 200 ms, a write failing) answers KEEP: a report is never lost to
 * storm control.  `time` (seconds), `app` and `title` are the new report's.
 */
pm_storm_verdict pmi_storm_admit(int pending_fd, int groups_fd, const char *signature, int64_t time, const char *app,
                                 const char *title, const pm_storm_policy *p, size_t *dropped);

/* ---- store_loop.c / store_history.c ------------------------------------------------- */

/* How many of recs (one app, newest first) crashed within `seconds` of their launch, from the first on. */
size_t pmi_loop_run(const pm_crash_rec *recs, size_t n, uint32_t seconds);
/* Flag the entries that form a crash loop. */
void pmi_store_mark_loops(pm_store *s);
/* An entry as a crash-loop record. */
void pmi_store_rec_of(pm_crash_rec *rec, const pm_sentry *e);
/* The last delivered crashes (the reports themselves are gone): up to cap records. */
size_t pmi_history_read(int root, pm_crash_rec *out, size_t cap);
/* Remember a delivered crash. */
void pmi_history_add(int root, const pm_crash_rec *rec);

#endif
