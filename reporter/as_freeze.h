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
#include <sys/types.h>

#include "as_capture_ctx.h"

/* The slot of tid, claimed if it has none (open addressing, lock-free); NULL when full. */
pm_slot *as_slot_claim(pid_t tid);
/* The slot of tid or NULL. */
pm_slot *as_slot_find(pid_t tid);

/*
 * List every thread of the process into c->tids (at most c->max_threads,
 * *truncated set when more exist) and stop each one but c->tid, waiting at
 * most c->freeze_timeout_ms.  Returns the number of tids listed.  The slots
 * and the answer count stay in as_g: the freeze handler must find them.
 */
size_t as_freeze(const as_capture_ctx *c, bool *truncated);
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
