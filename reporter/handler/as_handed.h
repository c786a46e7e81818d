/*
 * as_handed.h — AS-SAFE: what a report says of a fault that a handler
 * beside postmortem's was given first and gave up on (as_chain.h).
 */
#ifndef PM_REPORTER_AS_HANDED_H
#define PM_REPORTER_AS_HANDED_H

#include "as_capture.h"

/* The termination description names the handler (its image) and how it
 * gave up; where it was the JVM's, Application Specific Information says
 * where its own crash log (hs_err_pid<pid>.log) is.  Nothing when the
 * capture's fault was not handed first (c->handed NULL). */
void as_fill_handed(const as_capture_ctx *c);

#endif
