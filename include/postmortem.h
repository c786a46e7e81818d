/*
 * postmortem.h — what an app calls: libpostmortem (pkg-config postmortem),
 * which depends on libc alone.
 *
 * Install the crash handler, say what the app is doing (annotations,
 * breadcrumbs, a crash message), take live backtraces and snapshots, watch
 * for hangs, and deliver the reports of earlier runs at launch
 * (pm_upload_start loads the tooling library only when a report is pending).
 * Reading, writing, symbolicating and storing reports is report tooling:
 * postmortem-tools.h, libpostmortem-tools.
 *
 * Errors: every call here that can fail returns 0 (or a count), or -1 with
 * errno set, as the system calls an app makes beside them do.  (Report
 * tooling, postmortem-tools.h, returns a pm_err instead: its failures are
 * about reports, which errno has no words for.)  Functions marked "AS-safe"
 * may be called from a signal handler: they take no locks, never allocate
 * and use no stdio.
 */
#ifndef POSTMORTEM_H
#define POSTMORTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Frames, as live backtraces and reports give them                          */
/* ------------------------------------------------------------------------ */

/* How a frame was found. */
typedef enum pm_how {
	PM_HOW_UNKNOWN = 0, /* read from a report that does not say */
	PM_HOW_CONTEXT,     /* the thread's registers (frame 0) */
	PM_HOW_CFI,         /* DWARF call-frame information */
	PM_HOW_FP,          /* frame-pointer chain */
	PM_HOW_SCAN,        /* stack scanning: a guess */
} pm_how;

typedef struct pm_frame {
	uint64_t address;        /* pc for frame 0, return address for callers */
	int32_t image;           /* index into pm_report.images, -1 when unknown */
	const char *image_name;  /* the image column when image < 0 (NULL prints ???) */
	const char *symbol;      /* NULL when not symbolicated */
	uint64_t symbol_offset;  /* address - symbol start */
	bool has_offset;         /* false for "symbol (file:line)" with no "+ N" */
	bool inlined;            /* inlined into the next frame, same address */
	uint8_t how;             /* pm_how */
	const char *file;        /* source file or NULL */
	uint32_t line;           /* 0 when unknown */
	uint32_t column;         /* 0 when unknown */
} pm_frame;

/* ------------------------------------------------------------------------ */
/* Capture: install a crash handler in this process                          */
/* ------------------------------------------------------------------------ */

/* Where the handler's time went, in nanoseconds (CLOCK_MONOTONIC), for tuning and
 * benchmarks.  The time before the handler ran (the kernel's signal delivery) is in none. */
typedef struct pm_crash_phases {
	uint64_t freeze;          /* listing the other threads and asking each to stop */
	uint64_t images;          /* /proc/self/maps and each image's ELF headers */
	uint64_t threads;         /* each thread's name, registers and stack walk, and the
	                           * waits for threads that had not stopped yet */
	uint64_t symbols;         /* naming the frames */
	uint64_t write;           /* rendering and writing the .crash and the .json */
	uint64_t fsync;           /* making the report durable: waiting for its writeback, and its fsyncs */
	uint64_t minidump;        /* rendering, writing and fsync'ing the .dmp (0 when turned off) */
	uint64_t upload;          /* starting the uploader, once all three are durable (0 when no destination
	                           * is known: pm_config.upload, docs/upload.md) */
} pm_crash_phases;

/* What the crash callback is told.  Strings point into preallocated storage. */
typedef struct pm_crash_info {
	int signal;               /* the fatal signal */
	int si_code;
	uint64_t address;         /* si_addr */
	const char *crash_path;   /* <reports_dir>/pending/<id>.crash */
	const char *json_path;    /* <reports_dir>/pending/<id>.json */
	bool written;             /* both files were written and renamed into place */
	pm_crash_phases phases;
} pm_crash_info;

/* Called in the signal handler after the report is written: must be AS-safe. */
typedef void pm_crash_callback(const pm_crash_info *info, void *ctx);

typedef struct pm_config {
	const char *reports_dir;  /* NULL: $POSTMORTEM_DIR, else $XDG_STATE_HOME/postmortem,
	                             else ~/.local/state/postmortem */
	const char *app_id;       /* Identifier line; NULL: $POSTMORTEM_APP_ID, else the executable name */
	const char *app_version;  /* Version line; NULL: $POSTMORTEM_APP_VERSION, else ??? */
	const int *signals;       /* fatal signals to catch; NULL: SEGV BUS ILL FPE ABRT TRAP SYS */
	size_t signal_count;
	uint32_t max_threads;     /* threads a report can hold; 0: 1024 */
	uint32_t max_frames;      /* frames per thread; 0: 512 */
	uint32_t freeze_timeout_ms; /* how long to wait for threads to stop; 0: 500 */
	uint32_t handler_timeout_ms; /* how long a signal handler that was there before (a language
	                                runtime's), given a fault first, may take before the fault is
	                                reported and the process ends; 0: $POSTMORTEM_HANDLER_TIMEOUT_MS,
	                                else 30000 (docs/runtimes.md) */
	pm_crash_callback *on_crash;
	void *on_crash_ctx;
	bool no_minidump;         /* no <id>.dmp beside each report (also POSTMORTEM_MINIDUMP=0) */
	bool minidump_environ;    /* put the environment in the minidump (also POSTMORTEM_MINIDUMP_ENVIRON=1);
	                             off by default: it often holds tokens and passwords */
	bool no_sessions;         /* record no session for this run (also POSTMORTEM_SESSIONS=0): no release
	                             health (docs/sentry.md, "Sessions") */
	const struct pm_upload_options *upload; /* where a crash goes at once: with its url or dsn set, the
	                             crash handler starts the uploader once the report is durable (its url,
	                             dsn, headers, ca_file, allow_http, insecure_tls, no_gzip and environment
	                             are used); NULL: $POSTMORTEM_DSN or $POSTMORTEM_UPLOAD_URL, else the
	                             report waits for pm_upload_start or `postmortem upload`.
	                             POSTMORTEM_UPLOAD=next-launch: it always waits (docs/upload.md) */
} pm_config;

/*
 * Install the crash handler: signal handlers on alternate stacks (for every
 * thread, present and future), preallocated report storage, static process
 * facts.  NULL installs with defaults.  0 on success, -1 with errno set
 * (EPERM: the reports directory is another user's or writable by others).
 * NOT AS-safe; call early, before threads can crash.  Installing again
 * replaces the configuration.
 *
 * It also records the run's session (release health, docs/store.md
 * "Sessions"): a record in <reports_dir>/runs, held (one descriptor, locked)
 * until the process ends, its end written by exit() or _exit; an install
 * again keeps it, pm_uninstall does not end it, a forked child has none
 * unless it installs.  pm_config.no_sessions or POSTMORTEM_SESSIONS=0 turn
 * it off.
 *
 * Threads that exist already get their alternate stacks by a signal each;
 * in a process with more than 30 threads, a short-lived helper thread
 * sends those after pm_install has returned (pm_uninstall and fork wait for
 * it).  Until it has reached such a thread, a stack overflow there goes
 * unreported (any other crash is reported): with 256 threads that hold no
 * stack yet, for 5-9 ms after pm_install returns on a 2-CPU machine (their
 * own setups share the processors with it); under 1 ms when they hold one.
 * Threads started after pm_install get theirs at their start.
 */
int pm_install(const pm_config *cfg);
/* Restore the previous handlers and free the storage.  NOT AS-safe. */
void pm_uninstall(void);
/* The reports directory in use ("" before pm_install). */
const char *pm_reports_dir(void);

/* ------------------------------------------------------------------------ */
/* The crash in the app's own words (docs/text-format.md, "App context")     */
/* ------------------------------------------------------------------------ */

/*
 * Context the app gives for a crash that may come later.  These work before
 * and after pm_install, from any thread and from signal handlers: each is
 * async-signal-safe, takes no lock, never allocates and never waits (tens of
 * nanoseconds: bench/context_cost.c).  Storage is fixed: the limits
 * below.  Text is copied; control characters become spaces (the crash
 * message keeps its newlines: one ASI line each), and text cut to fit ends
 * with "…".  Hang reports and snapshots carry annotations and breadcrumbs too.
 *
 * Concurrency: calls from several threads are safe.  Two calls that overlap
 * on the same item (the crash message, one annotation key) are ordered as if
 * one came first: the one still writing wins, the other returns at once.  A
 * crash that interrupts a write shows that item marked " [being written]"
 * rather than waiting for it.  Each breadcrumb takes the next place in the
 * ring (one atomic increment), so threads adding them at once do not
 * overwrite each other; only a place still being written by a call a whole
 * ring older makes the newer call give way.
 */
enum {
	PM_CRASH_MESSAGE_MAX = 1024,  /* bytes of the crash message */
	PM_ANNOTATIONS_MAX = 32,      /* distinct keys */
	PM_ANNOTATION_KEY_MAX = 63,   /* bytes of a key: letters, digits, '_', '.', '-' */
	PM_ANNOTATION_VALUE_MAX = 255,/* bytes of a value */
	PM_BREADCRUMBS_MAX = 64,      /* the last this many are kept */
	PM_BREADCRUMB_MAX = 255,      /* bytes of one breadcrumb */
};
/* A line for Application Specific Information, for a runtime's panic hook
 * (a Rust panic hook, a Python extension): replaces the previous one; NULL clears. */
void pm_set_crash_message(const char *message);
/* Set or replace key's value; NULL or "" removes it.  0, or -1 with errno:
 * EINVAL (empty key, or a character outside [A-Za-z0-9_.-]), ENAMETOOLONG (key too
 * long), ENOSPC (PM_ANNOTATIONS_MAX other keys were used: a removed key
 * keeps its place). */
int pm_annotate(const char *key, const char *value);
/* Add a timestamped message to the ring of the last PM_BREADCRUMBS_MAX. */
void pm_breadcrumb(const char *message);

/* ------------------------------------------------------------------------ */
/* Live backtraces, snapshots and the hang watchdog                          */
/* ------------------------------------------------------------------------ */

/*
 * The stack of any thread of this process (tid from gettid), taken from the
 * calling thread with the crash unwinder; the thread goes on afterwards.
 * Frames get addresses, images' symbol names where known, and how they were
 * found.  Returns the number of frames (<= max), or -1 with errno set
 * (ESRCH: no such thread; ETIMEDOUT: it did not answer; EINVAL before
 * pm_install).  Strings point into storage valid until the next call.
 */
int pm_backtrace_thread(int tid, pm_frame *frames, size_t max);

/*
 * Write a non-fatal report of every thread (both files, like a crash), for
 * `reason` (e.g. "user asked for a snapshot").  The exception block says it
 * is not a crash.  Threads go on afterwards.  0, or -1 with errno set.
 */
int pm_snapshot_write(const char *reason);

/* What a watchdog does when the watched thread recovers after a hang report. */
typedef enum pm_watchdog_recovery {
	PM_WATCHDOG_KEEP = 0,    /* keep the report as a non-fatal hang, with its duration */
	PM_WATCHDOG_RETRACT,     /* delete the report */
} pm_watchdog_recovery;

typedef struct pm_watchdog_config {
	uint32_t threshold_ms;   /* a heartbeat this late is a hang; 0: 250 */
	uint32_t kill_after_ms;  /* hung this long: final 0x8badf00d report, then SIGKILL; 0: never */
	pm_watchdog_recovery on_recovery;
	bool systemd_notify;     /* forward heartbeats to systemd (WATCHDOG=1) when it watches us */
} pm_watchdog_config;

/*
 * Watch the calling thread (usually the main loop): it must call
 * pm_watchdog_heartbeat() each iteration.  A watchdog thread writes a hang
 * report into the pm_install directory as soon as a heartbeat is late by the
 * threshold.  NULL: defaults.  0, or -1 with errno set.  Needs pm_install.
 */
int pm_watchdog_start(const pm_watchdog_config *cfg);
/* One atomic store: the watched thread is alive.  AS-safe. */
void pm_watchdog_heartbeat(void);
/* Stop watching (also happens when the watched thread exits). */
void pm_watchdog_stop(void);

/* ------------------------------------------------------------------------ */
/* Upload at launch: the reports of earlier runs                             */
/* ------------------------------------------------------------------------ */

typedef struct pm_upload_options {
	const char *url;             /* https://… (or http://… to loopback, or with allow_http) */
	const char *dsn;             /* instead of url: a Sentry DSN, each report one envelope (docs/sentry.md) */
	const char *const *headers;  /* extra headers, e.g. "Authorization: Bearer …" */
	size_t header_count;
	const char *app_name, *app_version; /* form fields; NULL: from each report */
	const char *environment;     /* with dsn: Sentry's environment of every event (docs/sentry.md);
	                              * NULL: $POSTMORTEM_ENVIRONMENT, else "production" */
	uint32_t connect_timeout_ms; /* 0: 10 000 */
	uint32_t timeout_ms;         /* whole request; 0: 60 000 */
	uint32_t pass_timeout_ms;    /* a whole pass, retries and waits included; 0: twice timeout_ms */
	uint32_t max_attempts;       /* per report per pass; 0: 5 */
	uint32_t backoff_ms;         /* first retry delay, doubled each time, with jitter; 0: 1 000 */
	uint32_t backoff_max_ms;     /* 0: 60 000 */
	bool allow_http;             /* permit plain HTTP to hosts other than loopback */
	bool insecure_tls;           /* skip TLS verification (never by default) */
	const char *ca_file;         /* CA bundle to trust instead of the system's */
	bool no_gzip;                /* send uncompressed */
	bool symbolicate;            /* symbolicate with local debug info first */
	bool fingerprint_signature;  /* with dsn: Sentry groups the events by postmortem's crash signature
	                              * (docs/grouping.md), not by its own rules; the signature is a tag either way */
	/* pm_upload_pending calls this (if set) after each report it handled, whatever became of it:
	 * done of total reports, and the size of their files (done_bytes of total_bytes). */
	void (*progress)(void *ctx, size_t done, size_t total, uint64_t done_bytes, uint64_t total_bytes);
	void *progress_ctx;
} pm_upload_options;

/*
 * Deliver the reports waiting in the reports directory (pm_install's, else
 * as pm_install resolves it) on a background thread; never delays the
 * caller.  It first looks whether pending/ holds anything: when it does not,
 * it returns 0 at once and loads nothing (reports this run writes, such as
 * snapshots and hangs, go at the next launch).  With a dsn, earlier runs'
 * sessions are a reason too once one has waited an hour or 100 wait (an
 * envelope's worth): not every start loads the uploader for one session.  Otherwise it loads
 * libpostmortem-tools (libcurl, TLS, elfutils) from beside this library, or
 * wherever the dynamic loader finds it, and starts its uploader
 * (pm_upload_thread_start): a pass at once, then one every five minutes.
 * 0, or -1 with errno: EINVAL (refused options), EBUSY (an uploader runs
 * already), ELIBACC (libpostmortem-tools could not be loaded).
 */
int pm_upload_start(const pm_upload_options *opt);
/* Stop the background thread, waiting at most timeout_ms for the request in flight. */
void pm_upload_stop(uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif
#endif /* POSTMORTEM_H */
