/*
 * as_capture.h — the door of reporter/capture (AS-SAFE): a report filled
 * from a stopped process, everything it holds but what its starter adds,
 * shared by crashes (as_handler.c), snapshots and hang reports (live.c),
 * and a process whose threads its caller stopped (as_capture_stopped).
 * What else the rooms above use of it: the capture context and the
 * global it is built over (as_capture_ctx.h, state.h), the freeze
 * (as_freeze.h), the frozen thread lent to the walks and the landing
 * (as_walker.h, as_walk_lent.h), the report's pieces (as_report.h,
 * as_asi.h, as_context.h, as_cxx_exception.h, cxx_throw.h), the process
 * facts (as_facts.h), the capture's fresh pages (as_prefault.h) and the
 * control signal's tags (as_control_info.h).
 */
#ifndef PM_REPORTER_AS_CAPTURE_H
#define PM_REPORTER_AS_CAPTURE_H

#include <stddef.h>
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
 * Our own process (c->target is as_target_self()): stop every other
 * thread, then fill c->report: header, images, and each thread with its
 * registers and frames.  c->mc holds the calling thread's registers (the
 * fault context, or its own for a snapshot); a non-zero c->signal marks it
 * as the crashed thread.  The caller owns as_g.owner.
 */
void as_capture(const as_capture_ctx *c);

/*
 * A process whose threads its caller has stopped and read (a core file's
 * reader, a reporter holding a dying process, tests/seam): what as_capture
 * does after the freeze, over c->target, then the exception and the
 * symbols, which as_capture leaves to its starter.
 *
 * c->stopped[0, n) are the threads, each as the freeze would have left its
 * slot: tid; state SLOT_CAPTURED with the registers it stopped in (mc),
 * else it is listed without a stack (SLOT_BLOCKED: it blocked the signal
 * that stops threads); signal non-zero for one that crashed too while
 * another was reported; name, "" to read <proc>/task/<tid>/comm.  The
 * first c->max_threads are walked: put the crashed thread among them.
 * c->tid is the crashed thread, with its registers in c->mc, its signal
 * and siginfo in c->signal and c->info (0 and NULL: no crash, a snapshot);
 * c->facts says what the process is (its paths and names) and c->now when
 * it crashed.  The storage is the caller's, as pm_install's is the
 * handler's; c->symbols NULL leaves the frames unnamed.
 *
 * Then as_write_report and as_write_minidump (reporter/landing) write the
 * report's three files into c->dir_fd.
 */
void as_capture_stopped(const as_capture_ctx *c, size_t n);

/* Name the frames with the in-handler symbol tables. */
void as_capture_symbols(const as_capture_ctx *c);

#endif
