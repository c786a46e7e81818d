/*
 * session.h — this run's session record (session.c, as_session.c) and
 * whether runs ended before this one wait for delivery (session_waiting.c).
 * NOT AS-safe.
 */
#ifndef PM_REPORTER_SESSION_H
#define PM_REPORTER_SESSION_H

#include <stdbool.h>

#include "as_capture.h"

/*
 * Start this run's session in the runs file `runs` (pmi_reports_dir_prepare's;
 * kept open for the run, or closed here), from the facts pm_install
 * gathered; nothing when `off`.  A run has one session however often it
 * installs; a forked child that installs starts its own.  Failures are
 * silent: the run goes without a session.
 */
void pmi_session_begin(int runs, const pm_facts *f, bool off);

/*
 * Whether the sessions of earlier runs of reports_dir wait long enough, or in
 * numbers enough, to be worth loading the uploader for now: one that ended
 * an hour ago or more, or a whole envelope's worth (docs/sentry.md).
 */
bool pmi_sessions_waiting(const char *reports_dir);

#endif
