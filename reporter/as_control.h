/*
 * as_control.h — AS-SAFE: the handler of the reserved real-time signal.
 */
#ifndef PM_REPORTER_AS_CONTROL_H
#define PM_REPORTER_AS_CONTROL_H

#include <signal.h>

/* The control signal serves three purposes: a live backtrace's sample
 * request (it says so in its siginfo), stopping threads while a report is
 * captured (a report has an owner), and setting up alternate stacks at
 * install (otherwise). */
void as_on_control(int sig, siginfo_t *info, void *uctx);

#endif
