/*
 * as_sync_lent.c — AS-SAFE: a file's fsync on a lent frozen thread (see
 * as_sync_lent.h).
 *
 * The result word moves once, from PENDING, by a compare-and-swap: to the
 * lent thread's result, or to GIVEN_UP by the reporting thread, so a
 * result that comes too late is never used.  A thread given up on may
 * still fsync the descriptor after it was closed: at worst it flushes
 * whatever file took its number, which harms nothing.
 */
#include "as_sync_lent.h"

#include <unistd.h>

#include "as_capture.h"
#include "as_memory.h"

enum { PENDING, SYNCED, SYNC_FAILED, GIVEN_UP };

/* Persistent: a lent thread given up on may still read and write it. */
static struct {
	int fd;
	int result;
} job;

static void
sync_file(void *arg)
{
	(void)arg;
	int fd = __atomic_load_n(&job.fd, __ATOMIC_SEQ_CST);
	int result = as_sys_writeback(fd, true) == 0 && fsync(fd) == 0 ? SYNCED : SYNC_FAILED, pending = PENDING;
	__atomic_compare_exchange_n(&job.result, &pending, result, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

bool
as_sync_lend(int fd)
{
	__atomic_store_n(&job.fd, fd, __ATOMIC_SEQ_CST);
	__atomic_store_n(&job.result, PENDING, __ATOMIC_SEQ_CST);
	return as_walker_lend(sync_file, NULL);
}

as_sync_outcome
as_sync_lent_outcome(uint64_t timeout_ns)
{
	if (as_walker_take_back())
		return AS_SYNC_NOT_DONE;
	as_walker_wait_job(timeout_ns);
	int result = PENDING;
	if (__atomic_compare_exchange_n(&job.result, &result, GIVEN_UP, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return AS_SYNC_NOT_DONE;
	return result == SYNCED ? AS_SYNC_DONE : AS_SYNC_FAILED;
}
