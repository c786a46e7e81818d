/*
 * staging.h — where an analysis that may not write a report's last place
 * writes it, and how root takes it from there (staging.c).  NOT AS-safe.
 */
#ifndef PM_SYSTEM_STAGING_H
#define PM_SYSTEM_STAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A fresh directory <sysdir>/staging/<random>, 0700, given to uid:gid, in a
 * directory of root's alone; its descriptor, its name into name.  -1 (why
 * says) when it cannot be made. */
int pmi_staging_make(const char *sysdir, uid_t uid, gid_t gid, char *name, size_t cap, char *why, size_t wcap);
/* Copy one report out of staging into pending: only names of the exact
 * form <UUID>.crash, .json, .dmp (one UUID), each a regular file of
 * owner's with one link and at most PM_STAGING_FILE_MAX bytes, opened
 * O_NOFOLLOW | O_NONBLOCK; written as new files of this process's (root's),
 * 0600, through a hidden temporary, made durable, then renamed (the
 * store's order), the text last.  Nothing is parsed.  What was taken (or
 * why nothing was) into what. */
bool pmi_staging_land(int staging, uid_t owner, int pending, char *what, size_t cap);
/* Empty staging and remove it (sysdir/staging/name). */
void pmi_staging_remove(const char *sysdir, const char *name, int staging);

enum { PM_STAGING_FILE_MAX = 512 << 20 };

#endif
