/*
 * as_handler.h — the door of reporter/handler: the signal handlers
 * pm_install installs (AS-SAFE): the fatal one (as_handler.c) and the
 * control signal's router (as_control.c); the alternate signal stacks every
 * thread gets (altstack.h), asking threads for something through the
 * control signal (control_send.h), the program's sigaction as the
 * preload library shows it (as_interpose.h), the end of the run's
 * session record, which _exit writes too (as_session.h), and the uploader
 * the crash handler starts (as_upload_now.h).
 */
#ifndef PM_REPORTER_AS_HANDLER_H
#define PM_REPORTER_AS_HANDLER_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "altstack.h"
#include "as_interpose.h"
#include "as_session.h"
#include "as_upload_now.h"
#include "control_send.h"

void as_on_fatal(int sig, siginfo_t *info, void *uctx);
/* How the fatal handler is registered for sig, beside the handler `beside`
 * (the previous one, or the one the preload library recorded later): the
 * kernel applies that handler's mask, for the call as_handler.c may make
 * to it first.  At install and when the preload library records one;
 * false if sig is not a fatal signal of ours. */
bool as_fatal_action(int sig, const struct sigaction *beside, struct sigaction *out);
/* The control signal serves five purposes, each saying so in its siginfo
 * (PM_CONTROL_*, AS_CHAIN_*): a live backtrace's sample request, the
 * alternate-stack setup that pm_install asks of each thread, stopping
 * threads while a report is captured (only while a report has an owner),
 * and the watch over handlers given a fault first (as_chain.h): its
 * timer, and the probe sent to a thread whose call has lasted too long.  A setup request
 * still pending when a crash starts is served as a setup, and the thread
 * then answers the freeze signal sent after it. */
void as_on_control(int sig, siginfo_t *info, void *uctx);
/* The watch's probe reached thread tid (as_control.c): if it is still
 * inside a handler's call for a fault, past the bound, the fault is
 * reported and the process ends. */
void as_on_chain_probe(pid_t tid, void *uctx);
/* _exit(status) called (as_exit.c): from inside a handler's call for a
 * fault, the fault is reported before the process exits. */
void as_on_exit(int status);

#endif
