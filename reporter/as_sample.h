/*
 * as_sample.h — AS-SAFE: the sampled side of a live backtrace.
 */
#ifndef PM_REPORTER_AS_SAMPLE_H
#define PM_REPORTER_AS_SAMPLE_H

#include <signal.h>
#include <stdbool.h>

/* True when the control signal carries a sample request (sigqueue with the magic value). */
bool as_is_sample_request(const siginfo_t *info);
/* In the sampled thread's handler: hand over the registers, wait until the
 * requester has walked the stack (bounded), return. */
void as_on_sample(void *uctx);

#endif
