/*
 * session_record.h — the runs file: one record per run not yet collected,
 * <reports_dir>/runs (docs/store.md, "Sessions").  pm_install
 * (reporter/session.c, reporter/as_session.c) and `postmortem run`
 * (delivery/session_run.c) write records; the store (delivery/session_*.c)
 * and pm_upload_start (reporter/session_waiting.c) read them.  NOT AS-safe.
 *
 * The file holds PMI_RUN_SLOTS records, record i at i * PMI_RUN_BYTES, each a
 * file system block, of which the first PMI_RUN_TEXT bytes hold its text.
 * A record whose first byte is 0 is free: never written, or collected, when
 * the store makes it a hole again, which lseek(SEEK_DATA) tells without
 * reading (a read of a hole cost a start 20-50 us here: the kernel makes a
 * zeroed page of it).  A writer claims one with an exclusive
 * open-file-description lock on its block (F_OFD_SETLK) and keeps it until
 * its run ends: the kernel drops the lock when the process ends, however it
 * ends, so a record with bytes and no lock is of a run that is over.  One
 * file of fixed records, not a file per run: creating a file cost a start
 * about 60 us on ext4; and the runs nobody collects fill PMI_RUN_SLOTS
 * records, never more (16 MiB of address, a block each on disk).
 *
 * A record is text, lines "<key> <value>", NUL-padded:
 *
 *   postmortem-session 1
 *   pid <pid>
 *   started <us>                CLOCK_REALTIME, microseconds since the epoch
 *   app_id <text>               as a report's Identifier
 *   app_version <text>          as its Version (??? when unknown)
 *   exe <name>                  the executable's name (the kernel log names it)
 *   [oom_kill <count> <file>]   `postmortem run`: the memory cgroup's OOM kills at start
 *
 * and, once the run ended, one line more:
 *
 *   end exit <code> <us>        exit(), a return from main, _exit (pm_install's)
 *   end signal <n> <us> [<oom kills>]   a death by a signal (`postmortem run`, which saw it)
 *
 * A value never holds a line break (writers replace control characters).
 */
#ifndef PM_BASE_SESSION_RECORD_H
#define PM_BASE_SESSION_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PMI_RUNS_FILE "runs"
/* The store's: the sessions it collected from the runs file, and sent/ below it. */
#define PMI_SESSIONS_DIR "sessions"
#define PMI_SESSION_MAGIC "postmortem-session 1\n"

enum {
	PMI_RUN_SLOTS = 4096,
	PMI_RUN_BYTES = 4096,    /* a record's place: a file system block */
	PMI_RUN_TEXT = 1024,     /* what its text may take */
	PMI_RUN_END_ROOM = 64,   /* of which the end line's, after the start */
	PMI_RUN_PROBES = 8,      /* records tried from a random first one */
};

/* What a run's record starts with.  (Its Sentry session id is made when the
 * store collects it, from these: a record gives the same id however often it
 * is collected, so a collection cut short never sends a run twice.) */
typedef struct pmi_run_start {
	int64_t pid;
	uint64_t started_us;
	const char *app_id, *app_version, *exe;
	int64_t oom_kills;       /* -1: not recorded */
	const char *oom_file;
} pmi_run_start;

/* The record's text into buf (cap PMI_RUN_TEXT - PMI_RUN_END_ROOM at most),
 * values cut to fit; its length. */
size_t pmi_run_format(char *buf, size_t cap, const pmi_run_start *s);
/* Where a run of pid started at started_us begins looking for a free record:
 * runs of the same moment spread over the file. */
unsigned pmi_run_first_slot(int64_t pid, uint64_t started_us);
/* Claim a free record of the runs file fd, from record `first` on: lock it
 * (F_OFD_SETLK) and check that it is free.  Its number, or -1 when the
 * records tried are all taken.  Moves fd's offset. */
int pmi_run_claim(int fd, unsigned first);
/* Lock (F_WRLCK) or unlock (F_UNLCK) record slot of fd without waiting; 0 or -1. */
int pmi_run_lock(int fd, unsigned slot, short type);
/* Whether a live run holds record slot of fd (a lock another open file holds); false when
 * that cannot be told. */
bool pmi_run_held(int fd, unsigned slot);
/* The first record at or after slot that may hold a run (the file's data), or -1
 * when none does.  Moves fd's offset. */
int pmi_run_next(int fd, unsigned slot);

#endif
