/*
 * as_session.h — AS-SAFE: the end of this run's record in the runs file
 * (session.c writes its start at pm_install; base/session_record.h,
 * docs/store.md, "Sessions").
 */
#ifndef PM_REPORTER_AS_SESSION_H
#define PM_REPORTER_AS_SESSION_H

#include <stdatomic.h>
#include <sys/types.h>

/* The run's record, open from pm_install until the process ends. */
typedef struct as_session_state {
	_Atomic int fd;        /* the runs file, the record locked; -1: none (or its end is written) */
	pid_t pid;             /* the process it is of: a fork's child and a vfork's write nothing */
	dev_t dev;             /* what fd must still be: the app may have closed it and */
	ino_t ino;             /* opened something else under its number */
	unsigned slot;         /* the record's number */
	off_t end_at;          /* where the end line goes: right after the start */
} as_session_state;

extern as_session_state as_session;

/* Write "end exit <code> <time>" once, from exit()'s hook or _exit; the file
 * stays open (its lock says the process lives until the kernel ends it). */
void as_session_end(int status);

#endif
