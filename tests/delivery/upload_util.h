/*
 * upload_util.h — reports directories and options for the upload tests.
 */
#ifndef PM_TESTS_UPLOAD_UTIL_H
#define PM_TESTS_UPLOAD_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "http_server.h"
#include "postmortem-tools.h"

/* A fresh reports directory holding n whole pending reports (the Linux
 * fixture, incident ids "report-0000", ...), each with `pad` more bytes of
 * Application Specific Information.  malloc'd path. */
char *upload_make_reports(size_t n, size_t pad);
/* Write r as pending report id of dir (both files). */
void upload_write_report(const char *dir, const char *id, const pm_report *r);
/* Remove a reports directory and free its path. */
void upload_remove(char *dir);
/* The id of report i of upload_make_reports (static storage). */
const char *upload_id(size_t i);
/* <dir>/<sub>/<id><ext> (static storage). */
const char *upload_path(const char *dir, const char *sub, const char *id, const char *ext);
bool upload_exists(const char *path);
/* Open the store of dir with caps large enough for every test. */
pm_store *upload_store(const char *dir);
/* Run `postmortem upload --dir dir ARGS`: its exit status, its output (both streams) in *out. */
int upload_cli(const char *dir, const char *args, char **out);
/* Run /bin/sleep under the preload library with POSTMORTEM_DIR=dir and POSTMORTEM_DSN
 * http://<key>@127.0.0.1:<srv's port>/42 (its background upload), until n requests have
 * arrived at srv (60 s at most), then end it; whether they did. */
bool upload_preloaded_sleep(const char *dir, const char *key, http_server *srv, size_t n);
/* <dir>/<name> (malloc'd). */
char *upload_file(const char *dir, const char *name);
void upload_sleep_ms(long ms);
/* How many times needle occurs in text. */
unsigned text_count(const char *text, const char *needle);
/* The log of the uploaders the crash handler started in dir ("" when none), malloc'd. */
char *uploader_log(const char *dir);
/* Whether someone holds dir's upload lock (the byte every uploader locks). */
bool lock_taken(const char *dir);
/* Wait until at least `started` uploaders have started in dir and every one has ended (as
 * many "end:" lines in its log as "start" lines, the lock free); fails the test after 30 s.
 * The log (malloc'd). */
char *uploaders_done(const char *dir, unsigned started);
/* Options for url with quick retries, so failing tests fail fast. */
pm_upload_options upload_options(const char *url);

#endif
