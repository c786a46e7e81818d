/*
 * as_control.h — AS-SAFE: the handler of the reserved real-time signal.
 */
#ifndef PM_REPORTER_AS_CONTROL_H
#define PM_REPORTER_AS_CONTROL_H

#include <signal.h>

/* The control signal serves three purposes: a live backtrace's sample
 * request and the alternate-stack setup that pm_install asks of each
 * thread (each says so in its siginfo: PM_CONTROL_*), and stopping threads
 * while a report is captured (untagged, while a report has an owner).  A
 * setup request still pending when a crash starts is served as a setup,
 * and the thread then answers the freeze signal sent after it. */
void as_on_control(int sig, siginfo_t *info, void *uctx);

#endif
