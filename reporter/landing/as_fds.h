/*
 * as_fds.h — AS-SAFE: the descriptors a report needs, held from install.
 *
 * A process that has used every descriptor (EMFILE) must still get its
 * report: the handler writes through a descriptor of pending/ opened at
 * install (openat, so no path is resolved again at crash time), and spare
 * descriptors held since install are closed first thing in the handler to
 * make room for the files the capture opens (/proc, ELF files, the report).
 */
#ifndef PM_REPORTER_AS_FDS_H
#define PM_REPORTER_AS_FDS_H

#include <stdbool.h>
#include <sys/stat.h>

/* Hold pending_fd, the descriptor of pending/ that install opened and
 * checked (pmi_reports_dir_prepare, which said its st), and take the
 * spares.  At install; false with errno set (pending_fd is then still the
 * caller's). */
bool as_fds_open(int pending_fd, const struct stat *st);
/* Close what as_fds_open opened (still ours). */
void as_fds_close(void);
/* A descriptor of pending/: the one from install if it is still that
 * directory (an app may close descriptors it does not know), else one
 * opened again by path (which becomes the one); -1 if neither works. */
int as_pending_fd(void);
/* Close the spares (only those that are still ours). */
void as_spares_free(void);
/* Take the spares again, after a report the process survived. */
void as_spares_take(void);

#endif
