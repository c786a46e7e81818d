/*
 * as_tasks.h — AS-SAFE: the threads of this process, one by one, from
 * /proc/self/task through a caller's buffer (getdents64: no opendir, whose
 * DIR is a malloc).
 */
#ifndef PM_REPORTER_AS_TASKS_H
#define PM_REPORTER_AS_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct as_tasks {
	int fd;
	char *buf;
	size_t cap;
	long got, off;
} as_tasks;

/* False when /proc/self/task cannot be opened. */
bool as_tasks_open(as_tasks *t, char *buf, size_t cap);
/* The next thread id; false at the end. */
bool as_tasks_next(as_tasks *t, pid_t *tid);
void as_tasks_close(as_tasks *t);

#endif
