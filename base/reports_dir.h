/*
 * reports_dir.h — where reports go and whether that directory is ours
 * alone: what pm_install and the report store must agree on (NOT AS-safe).
 */
#ifndef PM_BASE_REPORTS_DIR_H
#define PM_BASE_REPORTS_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "cgroup_oom.h"
#include "postmortem.h"
#include "run_record.h"
#include "session_record.h"
#include "upload_env.h"

/* a then b into out (cap bytes with the NUL); the length, or -1 when it
 * does not fit. */
int pmi_path_join(char *out, size_t cap, const char *a, const char *b);
/* Resolve the reports directory from cfg (may be NULL) and the environment
 * into out, made absolute; false with errno set. */
bool pmi_config_reports_dir(const pm_config *cfg, char *out, size_t cap);
/* mkdir -p with mode 0700 for each missing component.  0 or -1 with errno. */
int pmi_mkdirs(const char *path);
/* Open directory `name` below `at` if it is ours alone (private_dir.c): the
 * reports directory (`top`: a symlink to it must be ours or root's; nobody
 * else may write to it) or one below it (opened without following a
 * symlink; group and other bits are taken off).  -1 with errno (EPERM when
 * refused) and a one-line reason in why. */
int pmi_private_dir_open(int at, const char *name, bool top, char *why, size_t cap);
/* Create the reports directory and its pending/ (0700) and check both as
 * above; says why not on stderr.  The descriptor of pending/ (*pending_st:
 * its fstat, so that a caller need not ask again), or -1 with errno.  With
 * runs, the runs file (session_record.h; created 0600 when missing, never
 * through a symlink) opened read-write into *runs: -1, silently, when it
 * cannot be had (reports do not depend on it). */
int pmi_reports_dir_prepare(const char *dir, struct stat *pending_st, int *runs);

#endif
