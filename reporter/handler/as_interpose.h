/*
 * as_interpose.h — sigaction for the signals postmortem owns, as the
 * program sees it under the preload library (AS-SAFE).
 */
#ifndef PM_REPORTER_AS_INTERPOSE_H
#define PM_REPORTER_AS_INTERPOSE_H

#include <signal.h>
#include <stdbool.h>

/* For a signal postmortem owns: record act as the handler beside
 * postmortem's (which it may call first, or after its report), tell old
 * what the kernel would have held without postmortem, and return true.
 * False: not ours, the kernel's business. */
bool as_interpose_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* From now on the preload library keeps postmortem's handlers in front
 * (its setup, before pm_install). */
void as_interpose_start(void);
/* Whether it does: then a handler's choice is what as_interpose_sigaction
 * recorded, and postmortem's stays in the kernel whatever it is. */
bool as_interpose_active(void);

#endif
