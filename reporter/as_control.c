/*
 * as_control.c — AS-SAFE: the control signal's handler routes each signal
 * to the crash-path piece it is for (see as_control.h).
 */
#include "as_control.h"

#include <stdatomic.h>

#include "as_altstack.h"
#include "as_freeze.h"
#include "as_sample.h"
#include "state.h"

void
as_on_control(int sig, siginfo_t *info, void *uctx)
{
	if (as_is_sample_request(info))
		as_on_sample(uctx);
	else if (atomic_load(&as_g.owner) != 0)
		as_on_freeze(sig, info, uctx);
	else
		as_altstack_on_setup(uctx);
}
