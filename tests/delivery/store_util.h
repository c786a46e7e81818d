/*
 * store_util.h — build reports directories for the store tests: real
 * reports (from a crashed sample) copied, re-dated, damaged.
 */
#ifndef PM_TESTS_STORE_UTIL_H
#define PM_TESTS_STORE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "postmortem-tools.h"

/* A real report: crash the null_deref sample, read its JSON twin into r
 * (pm_report_free it), and its two files' bytes (malloc'd) if asked. */
void su_real_report(pm_report *r, char **crash, size_t *crash_len, char **json, size_t *json_len);
/* A fresh reports directory with an empty pending/ (malloc'd path). */
char *su_reports_dir(void);
/* Remove a directory tree. */
void su_rm(const char *dir);
/* "<dir>/<sub>/<name>" in static storage (two buffers, alternating). */
const char *su_path(const char *dir, const char *sub, const char *name);
/* Write bytes to a file (0600). */
void su_write(const char *path, const void *data, size_t len);
/* A copy of `model` as report `id` of `app`, crashed at `time`, launched at
 * `launch`, written into pending/ as both files (each may be skipped). */
void su_put(const char *dir, const pm_report *model, const char *id, const char *app, int64_t time,
            int64_t launch, int64_t pid, bool text, bool json);
/* Set a file's times `seconds` into the past (the link itself for a symlink). */
void su_age(const char *path, int seconds);
/* Open the store of dir with opt (may be NULL) or fail the test. */
pm_store *su_open(const char *dir, const pm_store_options *opt);
/* The entry of id in any state, or NULL. */
const pm_store_entry *su_find(const pm_store *s, const char *id);
/* Run pm_store_open with stderr captured; returns what was logged (malloc'd). */
char *su_open_logged(pm_store **s, const char *dir, const pm_store_options *opt);
/* True when path exists (without following a final symlink). */
bool su_exists(const char *path);
/* Permission bits of a path (lstat). */
unsigned su_mode(const char *path);

#endif
