/*
 * as_sync_lent.h — AS-SAFE: one file of the report made durable by a frozen
 * thread lent to it (as_walker.h), while the reporting thread makes the
 * other durable: the two files' fsyncs wait on the disk together, not one
 * after the other.
 */
#ifndef PM_REPORTER_AS_SYNC_LENT_H
#define PM_REPORTER_AS_SYNC_LENT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum as_sync_outcome {
	AS_SYNC_DONE,    /* its writeback ended and its fsync returned 0 */
	AS_SYNC_FAILED,  /* one of them failed: the file must get no name */
	AS_SYNC_NOT_DONE /* none lent, it did not begin, was late or faulted: do it yourself */
} as_sync_outcome;

/* Wake the waiting thread to wait for fd's writeback, then fsync it; false
 * when no thread waits. */
bool as_sync_lend(int fd);
/* What came of it: a job not begun is taken back at once, one under way is
 * waited for until timeout_ns.  Its result is never read after. */
as_sync_outcome as_sync_lent_outcome(uint64_t timeout_ns);

#endif
