/*
 * as_altstack_known.c — AS-SAFE: the threads known to hold an alternate signal stack,
 * so that pm_install signals only the others (pmi_altstack_broadcast): a
 * reinstall, or an install after threads were started through our
 * pthread_create, then costs no signal round trip per thread.
 *
 * One slot per tid modulo the table size, claimed and released by CAS:
 * lock-free and AS-safe (filled from the setup-signal handler).  A tid whose
 * slot another tid holds is simply not remembered: that thread is signalled
 * as before.  A slot is released when the thread frees the stack we gave it;
 * a thread that kept the app's own stack is remembered until its slot is
 * claimed anew, which only skips asking it again.
 */
#include "as_altstack.h"

#include <stdatomic.h>

enum { KNOWN_SLOTS = 4096 };

static _Atomic pid_t known[KNOWN_SLOTS];

void
as_altstack_known_add(pid_t tid)
{
	pid_t expected = 0;
	if (tid > 0)
		atomic_compare_exchange_strong(&known[tid % KNOWN_SLOTS], &expected, tid);
}

void
as_altstack_known_remove(pid_t tid)
{
	pid_t expected = tid;
	if (tid > 0)
		atomic_compare_exchange_strong(&known[tid % KNOWN_SLOTS], &expected, 0);
}

bool
as_altstack_is_known(pid_t tid)
{
	return tid > 0 && atomic_load(&known[tid % KNOWN_SLOTS]) == tid;
}
