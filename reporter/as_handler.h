/*
 * as_handler.h — the fatal-signal handler (AS-SAFE), installed by pm_install.
 */
#ifndef PM_REPORTER_AS_HANDLER_H
#define PM_REPORTER_AS_HANDLER_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

void as_on_fatal(int sig, siginfo_t *info, void *uctx);
/* How the fatal handler is registered for sig, beside the handler `beside`
 * (the previous one, or the one the preload library recorded later): the
 * kernel applies that handler's mask, for the call as_handler.c may make
 * to it first.  At install and when the preload library records one;
 * false if sig is not a fatal signal of ours. */
bool as_fatal_action(int sig, const struct sigaction *beside, struct sigaction *out);
/* The watch's probe reached thread tid (as_control.c): if it is still
 * inside a handler's call for a fault, past the bound, the fault is
 * reported and the process ends. */
void as_on_chain_probe(pid_t tid, void *uctx);
/* _exit(status) called (as_exit.c): from inside a handler's call for a
 * fault, the fault is reported before the process exits. */
void as_on_exit(int status);

#endif
