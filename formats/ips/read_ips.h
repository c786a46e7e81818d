/*
 * read_ips.h — the door of formats/ips: the interface of the Apple .ips
 * reader (read_ips*.c) within, and what the format detector (formats/io)
 * shares of it, its line-1 and banner tests.
 *
 * An .ips file is a one-line JSON metadata object, then either a JSON body
 * (bug_type 309, apple-crash-format.md §11) or classic text.  Console's
 * "Translated Report" wraps translated text and the raw .ips in banners.
 */
#ifndef PM_FORMATS_READ_IPS_H
#define PM_FORMATS_READ_IPS_H

#include <cjson/cJSON.h>

#include "postmortem-tools.h"

/*
 * Caps on what one report may hold.  Real reports stay far below them
 * (Apple stops a backtrace at 512 frames); hostile input is cut and the
 * matching *_truncated flag set.
 */
enum {
	PM_IPS_MAX_THREADS = 2048,
	PM_IPS_MAX_FRAMES = 2048,
	PM_IPS_MAX_IMAGES = 8192,
	PM_IPS_MAX_LINES = 4096, /* asi lines, termination reasons */
};

/* Offset of the end of the line starting at `from` (its '\n', or len). */
size_t pmi_ips_line_end(const char *data, size_t len, size_t from);
/* First offset from `at` that is not JSON white space (len when none). */
size_t pmi_ips_skip_space(const char *data, size_t len, size_t at);

/*
 * Line 1 as .ips metadata: a JSON object with a "bug_type" member.  Returns
 * the parsed object (cJSON_Delete it) and the offset of line 2 in *body_at,
 * or NULL when line 1 is not such an object (err, when given, says why).
 */
cJSON *pmi_ips_metadata(const char *data, size_t len, size_t *body_at, pm_read_error *err);

/* Console's "Translated Report (Full Report Below)" banner opens the data. */
bool pmi_ips_is_translated(const char *data, size_t len);

/* Body members -> model (read_ips_header.c, read_ips_exception.c, ...). */
void pmi_ips_header(const cJSON *body, pm_report *r);
void pmi_ips_exception(const cJSON *body, pm_report *r);
void pmi_ips_images(const cJSON *body, pm_report *r);
void pmi_ips_threads(const cJSON *body, pm_report *r);

/* Shared pieces of the mapping (read_ips.c). */

/* Number of elements of a JSON array, at most max (*cut set when there were more). */
uint32_t pmi_ips_count(const cJSON *arr, uint32_t max, bool *cut);
/* Arena copy of a string member; NULL when absent, not a string, or empty. */
const char *pmi_ips_str(pm_arena *a, const cJSON *obj, const char *key);
/* printf into the arena; NULL when out of memory. */
const char *pmi_ips_printf(pm_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* String member "YYYY-MM-DD HH:MM:SS[.frac] +HHMM" -> t; false (t untouched) when absent or malformed. */
bool pmi_ips_time(const cJSON *obj, const char *key, pm_time *t);

#endif
