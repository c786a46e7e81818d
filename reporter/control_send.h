/*
 * control_send.h — asking one thread for something through the control
 * signal (as_control.c routes it).  NOT AS-safe callers only (install,
 * live backtraces), though the call itself is one system call.
 */
#ifndef PM_REPORTER_CONTROL_SEND_H
#define PM_REPORTER_CONTROL_SEND_H

#include <sys/types.h>

/* Queue the control signal `sig` to thread tid of this process, tagged
 * with `tag` (PM_CONTROL_*); 0, or -errno. */
long pmi_control_send(pid_t tid, int sig, int tag);

#endif
