/*
 * enable.h — what `postmortem system` does (enable.c).  NOT AS-safe.
 */
#ifndef PM_SYSTEM_ENABLE_H
#define PM_SYSTEM_ENABLE_H

#include "system.h"

/* Point kernel.core_pattern at handler, keeping what it replaces in sysdir
 * (named in the pattern unless default_dir).  msg says what was done or why not. */
pm_err pmi_system_enable(const char *handler, const char *sysdir, bool default_dir, char *msg, size_t cap);
/* Put back what enable replaced.  PM_E_NOTFOUND: it was not enabled. */
pm_err pmi_system_disable(const char *sysdir, char *msg, size_t cap);

typedef struct pm_system_status {
	pm_core_settings now;
	bool ours;                /* kernel.core_pattern runs a postmortem handler */
	bool has_state;
	pm_system_state state;    /* when has_state: what enable replaced */
} pm_system_status;
pm_err pmi_system_status(const char *sysdir, pm_system_status *s, char *msg, size_t cap);

#endif
