/*
 * as_freeze.h — AS-SAFE stop-the-world without ptrace.
 *
 * The reporting thread sends a reserved real-time signal to every other
 * thread; each one's handler copies its registers into its slot and parks
 * until the process dies (or is released when a previous handler may recover).
 */
#ifndef PM_REPORTER_AS_FREEZE_H
#define PM_REPORTER_AS_FREEZE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "as_capture_ctx.h"

/* The slot of tid, claimed if it has none (open addressing, lock-free); NULL when full. */
pm_slot *as_slot_claim(pid_t tid);
/* The slot of tid or NULL. */
pm_slot *as_slot_find(pid_t tid);

/* A freeze under way: what its waits share. */
typedef struct as_frozen {
	size_t n;                 /* tids listed in c->tids */
	bool truncated;           /* more threads than c->max_threads */
	uint64_t deadline;        /* no wait goes past it (c->freeze_timeout_ms after the asks) */
	uint64_t next_check;      /* when the silent threads are checked for a blocked signal */
	int seen;                 /* the answer count when last looked at */
} as_frozen;

/*
 * List every thread of the process into c->tids and ask each one but c->tid
 * to stop, without waiting: once asked, a thread runs none of its own code
 * until it is released, unless it blocks the signal.  The slots and the
 * answer count stay in as_g: the freeze handler must find them.
 */
as_frozen as_freeze_ask(const as_capture_ctx *c);
/* Wait until each of c->tids[first, first + count) has answered, or is given
 * up on (it blocks the signal), or f->deadline has passed. */
void as_freeze_wait(const as_capture_ctx *c, as_frozen *f, size_t first, size_t count);
/* Let parked threads go on: after a snapshot, or before chaining to a
 * handler that may recover.  Each release is a new generation. */
void as_release(void);
/* The current release generation (read it before answering a freeze). */
int as_release_generation(void);
/* Park the calling thread while the generation is still `generation`
 * (bounded by timeout_ns, 0: forever). */
void as_park(int generation, uint64_t timeout_ns);
/* Forget every slot, after the threads were released (snapshots). */
void as_reset_slots(void);
/* Handler of the freeze signal: answer if asked, then park. */
void as_on_freeze(int sig, siginfo_t *info, void *uctx);

#endif
