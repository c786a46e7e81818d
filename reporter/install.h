/*
 * install.h — install-time pieces (NOT AS-safe).
 */
#ifndef PM_REPORTER_INSTALL_H
#define PM_REPORTER_INSTALL_H

#include "state.h"

/* Read the process facts the handler will copy into every report. */
void pm_facts_gather(pm_facts *f, const pm_config *cfg);
/* Resolve the reports directory from cfg and the environment into out. */
bool pm_config_reports_dir(const pm_config *cfg, char *out, size_t cap);
/* mkdir -p with mode 0700 for each missing component.  0 or -1 with errno. */
int pm_mkdirs(const char *path);
/* Open directory `name` below `at` if it is ours alone (private_dir.c): the
 * reports directory (`top`: a symlink to it must be ours or root's; nobody
 * else may write to it) or one below it (opened without following a
 * symlink; group and other bits are taken off).  -1 with errno (EPERM when
 * refused) and a one-line reason in why. */
int pm_private_dir_open(int at, const char *name, bool top, char *why, size_t cap);
/* Create the reports directory and its pending/ (0700) and check both as
 * above; says why not on stderr.  0 or -1 with errno. */
int pm_reports_dir_prepare(const char *dir);

#endif
