/*
 * as_target.h — AS-SAFE: the process a capture reads, and what the capture
 * engine reads of it.
 *
 * Above the freeze, the engine (images and build ids, the unwinder, the
 * in-handler symbols, the report's facts, the minidump) reads its target
 * through this alone: bytes through `mem`, its mappings, and the files of
 * its /proc directory.  as_target_self() is the live source, our own
 * process, read fault-free: what a crash, a snapshot or a hang report
 * captures.  Another process is a target too: a core file's reader fills
 * one over the core's segments and the files they map (mem, mapping), a
 * reporter that holds a dying process over /proc/<pid>/mem and
 * /proc/<pid> (mem, proc); tests/seam fills one over a buffer.
 *
 * Its threads come apart, since only a caller knows how they were stopped:
 * the freeze stops ours (as_capture), a caller that stopped another
 * process's hands them over with their registers (as_capture_stopped,
 * reporter/capture/as_capture.h).
 */
#ifndef PM_REPORTER_AS_TARGET_H
#define PM_REPORTER_AS_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "as_mem.h"
#include "as_util.h"

/* One mapping of the target, as a line of /proc/<pid>/maps says it. */
typedef struct as_mapping {
	uint64_t start, end;      /* end exclusive */
	uint64_t offset;          /* in the file mapped */
	uint8_t prot;             /* PROT_READ | PROT_WRITE | PROT_EXEC */
	const char *path;         /* path_len bytes, not NUL-terminated: "/usr/lib/…", "[vdso]", "" (anonymous) */
	size_t path_len;
} as_mapping;

typedef struct as_target {
	/* Its memory as it is, uncached: a capture reads through a cache over it. */
	pm_mem mem;
	/* Its pid and its parent's; pid 0 is the calling process, whose ids are
	 * asked of the kernel where the report needs them (a fork changes them). */
	pid_t pid, ppid;
	/* Its /proc directory ("/proc/self", "/proc/1234"): thread names and
	 * states, the facts of its stat, the minidump's Linux streams; NULL:
	 * none (those are left out). */
	const char *proc;
	/* Mapping i of the target, in address order, into *out; false past the
	 * last.  NULL: the lines of <proc>/maps. */
	bool (*mapping)(void *ctx, size_t i, as_mapping *out);
	void *mapping_ctx;
} as_target;

/* Our own process: its memory read fault-free (as_mem_self), /proc/self. */
as_target as_target_self(void);
/* The target's pid and its parent's. */
pid_t as_target_pid(const as_target *t);
pid_t as_target_ppid(const as_target *t);

/* A walk over the target's mappings, in address order. */
typedef struct as_maps {
	const as_target *t;
	size_t next;
	pm_as_lines lines;        /* of <proc>/maps, when the target has no mapping function */
} as_maps;

/* Start the walk; buf holds one read of the maps file.  False when the
 * mappings cannot be had (no /proc, nothing told). */
bool as_maps_open(as_maps *m, const as_target *t, char *buf, size_t cap);
/* The next mapping; false at the end.  A line that does not parse is skipped. */
bool as_maps_next(as_maps *m, as_mapping *out);
void as_maps_close(as_maps *m);

/* <proc>/task/<tid>/<file> (tid 0: <proc>/<file>) into buf, as
 * as_read_small_file reads it; -1 when it cannot be read or the target has
 * no /proc directory. */
long as_target_read(const as_target *t, pid_t tid, const char *file, char *buf, size_t cap);
/* The path <proc>/<file> into buf; false without /proc or room. */
bool as_target_path(const as_target *t, const char *file, char *buf, size_t cap);

#endif
