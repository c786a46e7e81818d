/*
 * install.h — install-time pieces (NOT AS-safe).
 */
#ifndef PM_REPORTER_INSTALL_H
#define PM_REPORTER_INSTALL_H

#include "state.h"

/* Read the process facts the handler will copy into every report. */
void pm_facts_gather(pm_facts *f, const pm_config *cfg);
/* Resolve the reports directory from cfg and the environment into out, made
 * absolute; false with errno set. */
bool pm_config_reports_dir(const pm_config *cfg, char *out, size_t cap);
/* mkdir -p with mode 0700 for each missing component.  0 or -1 with errno. */
int pm_mkdirs(const char *path);

#endif
