/*
 * install.h — the door of reporter/install: install-time pieces (NOT
 * AS-safe), and a Go executable's own code (go_text.h).
 */
#ifndef PM_REPORTER_INSTALL_H
#define PM_REPORTER_INSTALL_H

#include "as_capture.h"
#include "go_text.h"
#include "reports_dir.h"

/* Read the process facts the handler will copy into every report. */
void pmi_facts_gather(pm_facts *f, const pm_config *cfg, char *exe_room /* PATH_MAX */);

/* Set by the preload library once it has installed postmortem: the pid of
 * the process it reports (install.c, preload.c). */
#define PMI_PRELOADED_VAR "POSTMORTEM_PRELOADED"

#endif
