/*
 * as_sample.h — AS-SAFE: the sampled side of a live backtrace.
 */
#ifndef PM_REPORTER_AS_SAMPLE_H
#define PM_REPORTER_AS_SAMPLE_H

/* In the sampled thread's handler: hand over the registers, wait until the
 * requester has walked the stack (bounded), return. */
void as_on_sample(void *uctx);

#endif
