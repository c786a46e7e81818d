/*
 * upload_dir.h — the door of delivery/upload: the passes over one reports
 * directory by its one uploader (upload_dir.c), which the background
 * thread, pm_upload_pending and the uploader a crash starts
 * (delivery/uploader) all make.
 */
#ifndef PM_DELIVERY_UPLOAD_DIR_H
#define PM_DELIVERY_UPLOAD_DIR_H

#include <stdbool.h>
#include <stdint.h>

#include "postmortem-tools.h"

/* Log one line to stderr, prefixed "postmortem: upload: ".  Callers never pass secrets. */
void pmi_upload_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How long a server asked to be left alone beyond one pass: no report (a Retry-After longer than
 * backoff_max_ms), no session (Sentry's X-Sentry-Rate-Limits); CLOCK_REALTIME, milliseconds since
 * the epoch, 0: not.  Kept in the directory's upload lock file for the next uploader, which
 * honours it when it delivers to the same endpoint. */
typedef struct upload_hold {
	char endpoint[256];       /* the server that asked, as logs show its URL ("": none) */
	int64_t events_until_ms;
	int64_t sessions_until_ms;
} upload_hold;

/* CLOCK_REALTIME in milliseconds since the epoch. */
int64_t pmi_upload_now_ms(void);

struct upload_stop;

typedef struct upload_dir_run {
	pm_store *store;          /* the first pass's store, which the caller opened (NULL: opened here) */
	const char *dir;          /* the reports directory when store is NULL (NULL: as pm_store_open finds it) */
	pm_store_options store_opt; /* how the passes open the store (its dir is set here) */
	const pm_upload_options *opt;
	const struct upload_stop *stop; /* NULL: it cannot be stopped */
	int lock_fd;              /* the upload lock a crash handler took and passed on; -1: take it here */
	bool wait_for_lock;       /* wait for another uploader, within the deadline (`postmortem upload`); else
	                             leave the reports to it: it looks for new ones before it ends */
	uint32_t deadline_ms;     /* every pass together; 0: opt's pass_timeout_ms */
} upload_dir_run;

typedef struct upload_dir_result {
	bool busy;                /* another uploader had the directory, and delivers its reports */
	upload_hold hold;         /* what servers asked, as the last pass left it */
} upload_dir_result;

/*
 * Deliver the directory's reports (and with a DSN its sessions) as its one
 * uploader: the lock taken first, then the store opened (a store the
 * caller opened is looked at again report by report); passes made while
 * reports no pass listed appear (a crash that found the directory taken
 * started no uploader of its own), the lock let go before each look.  res
 * sums what every pass sent and quarantined, and what the last one kept.
 * out may be NULL.
 */
pm_err pmi_upload_dir(const upload_dir_run *run, pm_upload_result *res, upload_dir_result *out);

/* The upload lock of the reports directory root taken, without waiting, for an uploader about
 * to be started that is handed it (`postmortem-uploader --lock-fd`: the system reporter's):
 * its descriptor (close-on-exec); -1 when it cannot be had, *busy when another uploader has it
 * (which takes the directory's new reports too). */
int pmi_upload_lock_for_start(int root, bool *busy);

#endif
