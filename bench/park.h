/*
 * park.h — threads parked at a known depth in a known blocking libc call,
 * shared by the benchmark programs: their stacks are what postmortem and
 * gdb are compared on.
 */
#ifndef PM_BENCH_PARK_H
#define PM_BENCH_PARK_H

#include <stddef.h>

typedef enum park_kind {
	PARK_COND_WAIT,  /* futex wait, through pthread_cond_wait */
	PARK_READ,       /* read on a pipe nobody writes */
	PARK_NANOSLEEP,
	PARK_POLL,
	PARK_KINDS
} park_kind;

/* Call at_bottom(arg) from below `depth` (at least 1) frames of park_descend. */
void park_descend(unsigned depth, void (*at_bottom)(void *), void *arg);

/* Block the calling thread for good in a call of the given kind. */
void park_forever(park_kind kind);

/* Start a detached thread running fn(arg), which should end in park_forever.
 * 0, or -1 with errno set. */
int park_thread(void *(*fn)(void *), void *arg);

/* Start n threads, thread i `depth` frames deep and then parked in kind
 * i % PARK_KINDS.  0, or -1 with errno set. */
int park_threads(size_t n, unsigned depth);

/* Wait until `total` threads have called park_forever since the process
 * started and every thread but the caller sleeps: then each is in its call.
 * 0, or -1 with errno set. */
int park_wait(size_t total);

#endif
