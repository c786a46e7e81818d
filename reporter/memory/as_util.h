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
/* Write v's decimal digits so that they end at end (no NUL); the first digit's address. */
char *as_put_dec(char *end, uint64_t v);
/* One of the engine's own files (/proc/self/..., /sys/..., /etc/os-release):
 * open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW),
 * retried on EINTR; -1 on failure, and always where a file server is set
 * (as_files_serve: its files are served, never opened). */
int as_open_ro(const char *path);

/* How as_open_file walks a path. */
enum {
	AS_OPEN_FOLLOW = 0,       /* links followed: a path someone gave on purpose (--exe) */
	AS_OPEN_NO_LINKS = 1,     /* a canonical path: no symbolic link in any component
	                           * (RESOLVE_NO_SYMLINKS), no ".." */
	AS_OPEN_BENEATH = 2,      /* and never above dirfd ("..", an absolute path: RESOLVE_BENEATH) */
	AS_OPEN_UNSERVED = 4,     /* the file system even where a file server is set (the server's own opens) */
};
/* A file a target or a core names (a mapped file, its debug file), for
 * reading: opened O_PATH first (no device's open runs, no FIFO blocks) and
 * kept only when it is a regular file, then opened for reading through
 * /proc/self/fd (without /proc: by the same path again, kept when it is
 * the same file).  how: AS_OPEN_*; openat2's RESOLVE_* where the kernel
 * has it (5.6), else a walk of the path one component at a time with
 * O_NOFOLLOW.  Where a file server is set, it alone answers (by path).
 * -1 when there is no such regular file. */
int as_open_file(int dirfd, const char *path, int how);

/* Whether path has a ".." component (a path the kernel wrote never does). */
bool as_path_climbs(const char *path);

/* Read up to cap-1 bytes of a small file, NUL-terminate, strip one trailing newline;
 * returns the length or -1.  A file server's bytes where one is set. */
long as_read_small_file(const char *path, char *buf, size_t cap);

/* The engine's files served from elsewhere: for a process whose /proc and
 * files a sandboxed reader may not open (the system reporter's analysis,
 * system/), what a snapshot holds and the descriptors someone else opened.
 * Set (NOT AS-safe) before a capture; NULL: the file system, as always. */
typedef struct as_file_server {
	/* The bytes of path (its /proc files, the OS's files), NULL when it has none. */
	const char *(*bytes)(void *ctx, const char *path, size_t *len);
	/* A new descriptor of a file a target names, or -1. */
	int (*open)(void *ctx, const char *path);
	void *ctx;
} as_file_server;
void as_files_serve(const as_file_server *server);
/* Whether a file server is set; the bytes it has for path (NULL: none). */
bool as_files_served(void);
const char *as_files_bytes(const char *path, size_t *len);

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
