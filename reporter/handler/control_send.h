/*
 * control_send.h — asking threads for something through the control
 * signal (as_control.c routes it), from ordinary code: install, live
 * backtraces.
 */
#ifndef PM_REPORTER_CONTROL_SEND_H
#define PM_REPORTER_CONTROL_SEND_H

#include <signal.h>
#include <sys/types.h>

/* The siginfo of control signal `sig` tagged with `tag` (PM_CONTROL_*),
 * from this process: prepared once, sent to each thread asked. */
void pmi_control_info(siginfo_t *info, int sig, int tag);
/* Queue it to thread tid of this process (pid: ours); 0, or -errno. */
long pmi_control_send(pid_t pid, pid_t tid, const siginfo_t *info);

#endif
