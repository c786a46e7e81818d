/*
 * as_capture_ctx.h — AS-SAFE: what one capture works with, handed down
 * explicitly by whoever starts it (as_handler.c for a crash, live.c for a
 * snapshot or a hang report, a caller of as_capture_stopped for a process
 * it stopped itself): the process captured, the storage pm_install
 * preallocated and the fault being reported.  Below those entry points the capture's functions
 * take their inputs from here, not from as_g, so a reader follows the crash
 * path through parameters alone.  as_g stays where a signal handler must
 * find its state (the entries, the freeze and control handlers) and in
 * install-time code that fills it.
 */
#ifndef PM_REPORTER_AS_CAPTURE_CTX_H
#define PM_REPORTER_AS_CAPTURE_CTX_H

#include <signal.h>
#include <time.h>
#include <ucontext.h>

#include "state.h"

typedef struct as_capture_ctx {
	/* the process captured (as_target.h): ours (as_target_self) but for as_capture_stopped */
	as_target target;
	/* its threads as the caller stopped them (as_capture_stopped), indexed
	   like tids; NULL: the freeze's slots */
	const pm_slot *stopped;

	/* the fault (signal 0 and info NULL for a snapshot) */
	pid_t tid;                /* the capturing thread (the crashed one of a stopped process) */
	int signal;
	const siginfo_t *info;
	const mcontext_t *mc;     /* the capturing thread's registers: the fault's, or its own */
	struct timespec now;

	/* configuration */
	pm_facts *facts;          /* completed by the first capture (as_facts.c) */
	const char *pending_dir;
	uint32_t max_threads, max_frames;
	int freeze_signal;
	uint32_t freeze_timeout_ms;
	bool minidump, minidump_environ;

	/* preallocated at install */
	pm_report *report;
	void *arena;
	size_t arena_size;
	pid_t *tids;              /* max_threads */
	pm_frame *frame_tmp;      /* max_frames */
	pm_image *model_images;
	pm_as_images *images;     /* its tables preallocated; filled by the capture */
	pm_as_image *as_images;
	pm_as_map *as_maps;
	size_t image_cap, map_cap;
	pm_mem_cache *mem_cache;
	struct pm_cfi_cache *cfi_cache;
	void *walk_space;         /* a lent walker's own (as_walk_space_at) */
	pm_mem *mem;              /* the target's memory, through mem_cache */
	struct pm_as_symbols *symbols; /* NULL if unavailable */
	char *scratch;
	size_t scratch_cap;
	char *io_buf;
	size_t io_cap;
	struct pm_md_range *md_ranges;
	size_t md_range_cap;

	/* a fault that a handler beside ours was given first and gave up on (as_chain.h); NULL if not */
	const struct as_chain_rec *handed;
	/* the last fault on this thread whose handler moved the context (as_chain.h), for a report
	   of another signal that may have come of it; NULL if none */
	const struct as_chain_moved *moved;

	/* what the capture tells its starter */
	pm_crash_phases *phases;
	unsigned *generation;     /* counts captures */
	char *crash_path, *json_path, *minidump_path; /* PATH_MAX each */
	int dir_fd;               /* the files' directory (openat); -1: pending/, held from install */
} as_capture_ctx;

/* The context of a capture by thread `tid` from registers `mc` (of fault
 * `sig` with `info`, or 0 and NULL), over the storage prepared in `g`;
 * `now` NULL when the report is written again, not captured. */
as_capture_ctx as_capture_ctx_of(pm_state *g, pid_t tid, const mcontext_t *mc, int sig, const siginfo_t *info,
                                 const struct timespec *now);

#endif
