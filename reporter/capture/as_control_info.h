/*
 * as_control_info.h — AS-SAFE: how a request on the control signal says
 * what it is for (its tag, PM_CONTROL_* in state.h, AS_CHAIN_* in
 * as_chain.h), which as_control.c reads back.
 */
#ifndef PM_REPORTER_AS_CONTROL_INFO_H
#define PM_REPORTER_AS_CONTROL_INFO_H

#include <signal.h>
#include <sys/types.h>

/* A control request of kind tag, sent by pid.  The freeze and the setup
 * requests tell the thread its own tid in si_uid, which the kernel leaves
 * as given for a signal to our own process (as_freeze.c, altstack.c): it
 * spares each thread a gettid.  A sample request tells uid. */
void as_control_info(siginfo_t *info, int sig, int tag, pid_t pid, uid_t uid);

#endif
