/*
 * as_walker.h — AS-SAFE: a frozen thread lent to the stack walks and to
 * the report's landing.
 *
 * While a crash's threads are walked, every other thread is parked in the
 * freeze handler and the second CPU is idle once their answers are in.  The
 * first frozen thread to answer that can safely walk (not a snapshot, it did
 * not crash too, it runs on an alternate stack with room) waits for a job
 * instead of parking; the reporting thread offers it one or dismisses it.
 * The job is a range of batches: the reporting thread takes them from the
 * bottom, the lent thread from the top, each by a compare-and-swap on one
 * word, so no batch is taken twice and neither waits for the other until
 * they meet.  Then the reporting thread waits, bounded, for the lent
 * thread's batch under way; a batch it did not finish in time, or in which
 * it faulted, is the reporting thread's again, and the lent thread's result
 * for it is never used.  After the walks (or none, below the threads they
 * are shared from) the same thread waits for one more job: a file's fsync
 * while the report lands (as_sync_lent.h), until it is dismissed.
 */
#ifndef PM_REPORTER_AS_WALKER_H
#define PM_REPORTER_AS_WALKER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

/*
 * The freeze handler, once its thread has answered: a thread that may walk
 * (a crash is reported, not a snapshot, and its alternate stack has room
 * below uc's frame) waits for a job (bounded), runs it with the fatal
 * signals (signals[0, count)) unblocked, so that a fault in it reaches the
 * fatal handler; then waits for the next (two at most); then it returns,
 * to park like the others.
 */
void as_walker_volunteer(bool crash, const ucontext_t *uc, pid_t tid, const int *signals, size_t count);

/* Reporting thread: take the waiting thread, if there is one (false: walk
 * alone, and let it park: as_walker_dismiss). */
bool as_walker_claim(void);
/* Reporting thread: let a thread that waits for a job park, or that runs
 * one park once it ends. */
void as_walker_dismiss(void);
/* Reporting thread: wake the waiting thread, if there is one, to run
 * run(arg) where it is (false: none waits). */
bool as_walker_lend(void (*run)(void *), void *arg);
/* Reporting thread: true when the job lent had not begun; now it never will. */
bool as_walker_take_back(void);
/* Reporting thread: wait until timeout_ns for the job lent to end (or
 * fault); what it did is the job's own to say. */
void as_walker_wait_job(uint64_t timeout_ns);
/* Reporting thread: wake the claimed thread to run run(arg), as early as
 * it can (the wakeup takes a few hundred microseconds): run prepares, then
 * waits for its batches (as_walker_wait_batches) and takes them
 * (as_walker_take_high).  False (the thread parks) when it may run only
 * on the calling thread's CPU. */
bool as_walker_offer(void (*run)(void *), void *arg);
/* Reporting thread: the batches are [first, batches), or there are none. */
void as_walker_start(size_t first, size_t batches);
void as_walker_cancel(void);
/* Lent thread: wait (bounded) for the batches; false: there are none. */
bool as_walker_wait_batches(void);
/* The next batch from the bottom (the reporting thread's) or from the top
 * (the lent thread's); false when none is left. */
bool as_walker_take_low(size_t *batch);
bool as_walker_take_high(size_t *batch);
/* Lent thread: batch b is done.  False: the reporting thread gave up on it
 * (its result must not be used); stop. */
bool as_walker_done(size_t b);
/*
 * Reporting thread, no batch left to take: wait until timeout_ns for the
 * lent thread's batch under way, then give up on it.  Batches [*from, batches)
 * are the lent thread's, done; [*redo, *from) the reporting thread walks
 * itself (none, or the one given up on, or all the lent thread took when it
 * faulted).  *clean: the lent thread has ended its job, and will write
 * nothing more.
 */
void as_walker_finish(uint64_t timeout_ns, size_t *redo, size_t *from, bool *clean);
/* The fatal handler, first thing: true when the calling thread is the lent
 * one and faulted in its job; the reporting thread is told, and walks what
 * it took.  The thread must then not answer for the report (its slot holds
 * where it was frozen). */
bool as_walker_on_fault(pid_t tid);

#endif
