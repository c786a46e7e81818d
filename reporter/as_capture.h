/*
 * as_capture.h — AS-SAFE: everything a report holds except the exception,
 * shared by crashes (as_handler.c), snapshots and hang reports (live.c).
 */
#ifndef PM_REPORTER_AS_CAPTURE_H
#define PM_REPORTER_AS_CAPTURE_H

#include <time.h>
#include <ucontext.h>

#include "state.h"

/*
 * Stop every other thread, then fill as_g.report: header, images, and each
 * thread with its registers and frames.  `self_mc` holds the calling
 * thread's registers (the fault context, or its own for a snapshot);
 * `self_crashed` marks it as the crashed thread.  The caller owns as_g.owner.
 */
void as_capture(pid_t self, const mcontext_t *self_mc, bool self_crashed, const struct timespec *now);
/* Name the frames with the in-handler symbol tables. */
void as_capture_symbols(void);

#endif
