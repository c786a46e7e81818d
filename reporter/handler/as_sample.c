/*
 * as_sample.c — AS-SAFE: the sampled side of a live backtrace (see live.c).
 *
 * The thread must not run while its stack is being read, so it waits in its
 * handler until the requester is done — at most SAMPLE_HOLD_NS, so a
 * requester that goes away cannot leave it stuck.
 */
#include "as_sample.h"

#include <errno.h>

#include "as_capture.h"
#include "as_memory.h"

static const uint64_t sample_hold_ns = 2ull * 1000000000u;

void
as_on_sample(void *uctx)
{
	int saved = errno;
	pm_sample *s = &as_g.sample;
	if (__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) != as_sys_gettid() ||
	    __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SAMPLE_ASKED) {
		errno = saved;
		return; /* a request that was given up on */
	}
	s->mc = ((ucontext_t *)uctx)->uc_mcontext;
	__atomic_store_n(&s->state, SAMPLE_TAKEN, __ATOMIC_RELEASE);
	as_sys_futex_wake(&s->state);
	uint64_t deadline = as_sys_now_ns() + sample_hold_ns;
	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SAMPLE_TAKEN) {
		uint64_t now = as_sys_now_ns();
		if (now >= deadline)
			break;
		as_sys_futex_wait(&s->state, SAMPLE_TAKEN, deadline - now);
	}
	errno = saved;
}
