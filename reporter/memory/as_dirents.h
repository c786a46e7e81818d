/*
 * as_dirents.h — AS-SAFE: the names in a directory, one by one, through a
 * caller's buffer (getdents64: no opendir, whose DIR is a 32 KiB malloc,
 * the first of a process that has made none).
 */
#ifndef PM_REPORTER_AS_DIRENTS_H
#define PM_REPORTER_AS_DIRENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct as_dirents {
	int fd;
	char *buf;
	size_t cap;
	long got, off;
} as_dirents;

/* False when the directory cannot be opened. */
bool as_dirents_open(as_dirents *d, const char *path, char *buf, size_t cap);
/* The next name ("." and ".." included); NULL at the end. */
const char *as_dirents_next(as_dirents *d);
void as_dirents_close(as_dirents *d);
/* The next thread id of /proc/self/task opened in d; false at the end. */
bool as_dirents_next_tid(as_dirents *d, pid_t *tid);

#endif
