/*
 * as_report.h — AS-SAFE filling of the report model at crash time.
 *
 *   as_fill_header()     process facts (prepared at install) + crash-time ones
 *   as_fill_exception()  Exception / Termination block from the siginfo
 *   as_fill_reraised()   ... or from the original fault behind a re-raise
 *   as_fill_threads()    every listed thread: name, registers, frames
 */
#ifndef PM_REPORTER_AS_REPORT_H
#define PM_REPORTER_AS_REPORT_H

#include <signal.h>
#include <sys/types.h>

#include "as_capture_ctx.h"

/* Header: facts, the target's pid and parent read now, the crash time, a fresh incident id. */
void as_fill_header(pm_report *r, const pm_facts *f, const struct timespec *now, const as_target *t);
/* Exception block for signal `sig` described by `info`, raised in target t. */
void as_fill_exception(pm_report *r, const pm_facts *f, int sig, const siginfo_t *info, const as_target *t);
/* A fault signal target t sent itself: a handler that ran before ours re-raised it. */
bool as_is_reraised_fault(int sig, const siginfo_t *info, const as_target *t);
/* After as_fill_threads: when the signal is such a re-raise and the crashed thread's
 * walk passed the original fault's signal frame, the exception block describes that
 * fault, and says who re-raised it (as_reraise.c). */
void as_fill_reraised(const as_capture_ctx *c);
/* One report thread for each of the n first of c->tids, each walked once
 * it has answered the freeze f; c->tid is the calling thread, whose registers
 * are c->mc (the others come from their slots).  f NULL: a stopped process
 * (as_capture_stopped), every thread's state in c->stopped.  When c->signal
 * is set, c->tid is the crashed thread and triggered_thread points at it. */
struct as_frozen;
void as_fill_threads(const as_capture_ctx *c, struct as_frozen *f, size_t n);

/* The name in /proc/<pid>/comm of a process of this machine, copied into
 * the arena; NULL if gone. */
const char *as_proc_name(pm_arena *a, pid_t pid);
/* The name of thread tid of target t (<proc>/task/<tid>/comm), copied into
 * the arena; NULL if gone, or when t has no /proc directory. */
const char *as_thread_name(pm_arena *a, const as_target *t, pid_t tid);
/* An arena copy of prefix + "0x%016llx" (e.g. "KERN_INVALID_ADDRESS at 0x…"). */
const char *as_arena_addr(pm_arena *a, const char *prefix, uint64_t addr);

#endif
