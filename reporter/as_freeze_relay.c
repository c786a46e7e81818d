/*
 * as_freeze_relay.c — AS-SAFE: the freeze's requests handed out to the
 * threads that send them (see as_freeze_relay.h).
 *
 * The reporting thread writes the list, then the claims word with release
 * order; a taker reads the claims word first (acquire), so it sees the list
 * it was written for.  A taker still running from an earlier capture can
 * only be handed an index of the current one: it sends a request only if
 * that thread's slot says it is listed and not sent yet (as_freeze.c).
 */
#include "as_freeze_relay.h"

#include <stdint.h>
#include <string.h>

static struct {
	uint64_t claims;          /* low half: the next index from the bottom; high: one past the top's */
	const pid_t *tids;
	siginfo_t info;
} relay;

void
as_relay_open(const pid_t *tids, size_t n, const siginfo_t *info)
{
	relay.tids = tids;
	relay.info = *info;
	__atomic_store_n(&relay.claims, (uint64_t)n << 32, __ATOMIC_SEQ_CST);
}

bool
as_relay_take(bool top, pid_t *tid, siginfo_t *info)
{
	uint64_t v = __atomic_load_n(&relay.claims, __ATOMIC_SEQ_CST);
	for (;;) { /* each failed exchange means another took one: bounded by the list */
		uint64_t lo = v & 0xffffffffu, hi = v >> 32;
		if (lo >= hi)
			return false;
		uint64_t next = top ? (hi - 1) << 32 | lo : v + 1;
		if (__atomic_compare_exchange_n(&relay.claims, &v, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			*tid = relay.tids[top ? hi - 1 : lo];
			as_relay_request(info);
			return true;
		}
	}
}

void
as_relay_request(siginfo_t *info)
{
	memcpy(info, &relay.info, sizeof *info);
}
