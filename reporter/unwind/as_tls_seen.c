/*
 * as_tls_seen.c — AS-SAFE: a small lock-free set of sound thread pointers
 * (see as_tls_seen.h).
 */
#include "as_tls_seen.h"

#include <stdatomic.h>
#include <stddef.h>

enum { SLOTS = 512, PROBES = 8 };

static _Atomic uint64_t seen[SLOTS];

static size_t
home(uint64_t tp)
{
	return (size_t)((tp * 0x9e3779b97f4a7c15u) >> 55) % SLOTS;
}

bool
as_tls_seen(uint64_t tp)
{
	if (!tp)
		return false;
	for (size_t k = 0, i = home(tp); k < PROBES; k++, i = (i + 1) % SLOTS)
		if (atomic_load_explicit(&seen[i], memory_order_relaxed) == tp)
			return true;
	return false;
}

void
as_tls_saw(uint64_t tp)
{
	size_t h = home(tp);
	for (size_t k = 0, i = h; k < PROBES; k++, i = (i + 1) % SLOTS) {
		uint64_t cur = atomic_load_explicit(&seen[i], memory_order_relaxed);
		if (cur == tp)
			return;
		if (!cur && atomic_compare_exchange_strong(&seen[i], &cur, tp))
			return;
	}
	/* Full around its home: the home slot is the one forgotten. */
	atomic_store_explicit(&seen[h], tp, memory_order_relaxed);
}
