/*
 * as_control.h — AS-SAFE: the handler of the reserved real-time signal.
 */
#ifndef PM_REPORTER_AS_CONTROL_H
#define PM_REPORTER_AS_CONTROL_H

#include <signal.h>
#include <sys/types.h>

/* The control signal serves five purposes, each saying so in its siginfo
 * (PM_CONTROL_*, AS_CHAIN_*): a live backtrace's sample request, the
 * alternate-stack setup that pm_install asks of each thread, stopping
 * threads while a report is captured (only while a report has an owner),
 * and the watch over handlers given a fault first (as_chain.h): its
 * timer, and the probe sent to a thread whose call has lasted too long.  A setup request
 * still pending when a crash starts is served as a setup, and the thread
 * then answers the freeze signal sent after it. */
void as_on_control(int sig, siginfo_t *info, void *uctx);

#endif
