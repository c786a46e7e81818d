/*
 * preload_sigaction.h — the preload library's sigaction (NOT AS-safe to set up).
 */
#ifndef PM_REPORTER_PRELOAD_SIGACTION_H
#define PM_REPORTER_PRELOAD_SIGACTION_H

#include <signal.h>

/* Find libc's sigaction and this library's code; before pm_install. */
void pmi_preload_sigaction_setup(void);

#endif
