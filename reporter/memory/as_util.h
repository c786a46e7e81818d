/*
 * as_util.h — AS-SAFE small helpers for the crash path: bounded string
 * copies, number parsing, whole-file and line-by-line reads with open/read.
 */
#ifndef PM_REPORTER_AS_UTIL_H
#define PM_REPORTER_AS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copy src into dst (cap bytes incl. NUL), truncating; returns the length copied. */
size_t as_strlcpy(char *dst, const char *src, size_t cap);
/* Append src to the NUL-terminated dst, truncating; returns the new length. */
size_t as_strlcat(char *dst, const char *src, size_t cap);
/* Last path component (points into path). */
const char *as_basename(const char *path);
/* Parse hex digits at *p (advancing it); false if none. */
bool as_parse_hex(const char **p, const char *end, uint64_t *out);
/* Parse decimal digits at *p (advancing it); false if none. */
bool as_parse_dec(const char **p, const char *end, uint64_t *out);
/* open(path, O_RDONLY | O_CLOEXEC), retried on EINTR; -1 on failure. */
int as_open_ro(const char *path);
/* Read up to cap-1 bytes of a small file, NUL-terminate, strip one trailing newline;
 * returns the length or -1. */
long as_read_small_file(const char *path, char *buf, size_t cap);

/* Read "<prefix><id>/<file>" (e.g. "/proc/self/task/", tid, "comm") into buf; -1 if absent. */
long as_read_proc(const char *prefix, long id, const char *file, char *buf, size_t cap);

/* Line-by-line reading of a file through a caller buffer. */
typedef struct pm_as_lines {
	int fd;
	char *buf;
	size_t cap, len, pos;
	bool eof;
} pm_as_lines;

bool as_lines_open(pm_as_lines *l, const char *path, char *buf, size_t cap);
/* Next line without its newline (not NUL-terminated); false at the end.  Lines longer
 * than the buffer are returned cut to the buffer size. */
bool as_lines_next(pm_as_lines *l, const char **line, size_t *len);
void as_lines_close(pm_as_lines *l);

#endif
