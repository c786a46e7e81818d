/*
 * as_capture.h — AS-SAFE: everything a report holds except the exception,
 * shared by crashes (as_handler.c), snapshots and hang reports (live.c).
 */
#ifndef PM_REPORTER_AS_CAPTURE_H
#define PM_REPORTER_AS_CAPTURE_H

#include <time.h>
#include <ucontext.h>

#include "as_asi.h"
#include "as_capture_ctx.h"
#include "as_context.h"
#include "as_control_info.h"
#include "as_cxx_exception.h"
#include "as_facts.h"
#include "as_freeze.h"
#include "as_prefault.h"
#include "as_report.h"
#include "as_walk_lent.h"
#include "as_walker.h"
#include "cxx_throw.h"

/*
 * Stop every other thread, then fill c->report: header, images, and each
 * thread with its registers and frames.  c->mc holds the calling thread's
 * registers (the fault context, or its own for a snapshot); a non-zero
 * c->signal marks it as the crashed thread.  The caller owns as_g.owner.
 */
void as_capture(const as_capture_ctx *c);
/* Name the frames with the in-handler symbol tables. */
void as_capture_symbols(const as_capture_ctx *c);

#endif
