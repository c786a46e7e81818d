/*
 * as_handler.h — the fatal-signal handler (AS-SAFE), installed by pm_install.
 */
#ifndef PM_REPORTER_AS_HANDLER_H
#define PM_REPORTER_AS_HANDLER_H

#include <signal.h>

void as_on_fatal(int sig, siginfo_t *info, void *uctx);

#endif
