/*
 * as_upload_now.h — AS-SAFE: the uploader the crash handler starts once a
 * report is durable, so that it reaches its destination without a next
 * launch (docs/upload.md, "At the crash").  pm_install prepares all the
 * start needs (reporter/install/upload_now.c): the program, its argv and
 * envp, the upload lock's path, the child's stack.  The handler takes the
 * reports directory's upload lock (one uploader at a time per directory),
 * clones a child that shares its memory until it execs (no page tables
 * copied, nothing allocated), and hands the lock to the uploader as
 * descriptor AS_UPLOAD_LOCK_FD.
 */
#ifndef PM_REPORTER_AS_UPLOAD_NOW_H
#define PM_REPORTER_AS_UPLOAD_NOW_H

#include <stdbool.h>
#include <sys/types.h>

/* The uploader's argv: path --dir DIR --crashed PID, then the tail the crash
 * writes: --lock-fd 3 (the lock handed over) or --wait-for-lock (this
 * process's own upload thread holds it, and lets it go as the process
 * ends), and --waited when the crashed process waits for it. */
enum {
	AS_UPLOAD_ARGV_PID = 4,   /* written at crash time: the crashed process's pid */
	AS_UPLOAD_ARGV_TAIL = 5,  /* written at crash time */
	AS_UPLOAD_ARGV_COUNT = 9, /* with the NULL that ends it */
	AS_UPLOAD_LOCK_FD = 3,    /* the upload lock, held, in the uploader */
};
#define AS_UPLOAD_LOCK_FD_TEXT "3"

typedef struct as_upload_now_state {
	bool armed;               /* a destination is known and the uploader was found */
	bool thread_here;         /* pm_upload_start's thread runs in this process: the lock taken
	                             may be its own (upload_start.c) */
	const char *lock_path;    /* <reports_dir>/upload.lock */
	char **argv;              /* AS_UPLOAD_ARGV_COUNT; argv[0] is the program */
	char **envp;
	char pid_text[24];        /* argv[AS_UPLOAD_ARGV_PID] points into it */
	int lock_fd;              /* at crash time: the lock, held, for the child to pass on */
	int ended_fd;             /* at crash time: our pidfd, whose end the child waits for (-1: none) */
	void *stack_top;          /* the child's stack, until its execve */
	void *map;                /* install's mapping: the stack, then argv, envp and their strings */
	size_t map_size;
} as_upload_now_state;

extern as_upload_now_state as_upload_now;

/* What became of a start. */
typedef enum as_upload_started {
	AS_UPLOAD_OFF = 0,        /* not armed */
	AS_UPLOAD_BUSY,           /* another uploader holds the directory: it takes this report too */
	AS_UPLOAD_AFTER_US,       /* so may this process's own upload thread, which ends with it: an
	                             uploader was started that waits for the lock */
	AS_UPLOAD_FAILED,         /* no lock file or no clone: nothing changed */
	AS_UPLOAD_STARTED,        /* a child is on its way to exec the uploader (if that fails, it ends
	                             with the lock it held: nothing else changed) */
} as_upload_started;

/*
 * Start the uploader for the report just landed.  Bounded: an open, a lock
 * and a clone; nothing waits for the child.  The uploader runs in a session
 * of its own, standard streams on /dev/null, every other descriptor but
 * the lock closed, every signal blocked (it unblocks them).  Where our end
 * would end it too (we are our pid namespace's init, or a container's init
 * is our parent), the handler waits for it, at most AS_UPLOAD_WAIT_MS.
 */
as_upload_started as_upload_now_start(void);

enum { AS_UPLOAD_WAIT_MS = 10000 };

#endif
