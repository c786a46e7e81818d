/*
 * as_walk_lent.h — AS-SAFE: the walks shared with a frozen thread lent to
 * them (as_walker.h), from LEND_MIN_THREADS threads (as_walk_lent.c).
 */
#ifndef PM_REPORTER_AS_WALK_LENT_H
#define PM_REPORTER_AS_WALK_LENT_H

#include "as_walk_batch.h"

/* Before the images are scanned: with enough threads, a frozen thread is
 * woken to walk beside the calling one (as_walk_lent). */
void as_lend_walks(const as_capture_ctx *c, size_t n);
/* The walks of the batches of c->tids[0, n) from batch `first` on into w
 * (the reporting thread's walker), shared with a lent thread; false, and
 * nothing walked, when there is none (yet: the caller walks a batch and
 * asks again). */
bool as_walk_lent(const as_capture_ctx *c, struct as_frozen *f, thread_walker *w, size_t n, size_t first);
/* No walks after all (no room for the report's threads): a thread woken
 * for them ends its job and waits for the landing's. */
void as_lend_cancel(void);

/* What a lent thread walks with, its own: reserved at install
 * (as_walk_space_size bytes, the region's last), untouched until then. */
typedef struct as_walk_space {
	pm_mem_cache *cache;
	struct pm_cfi_cache *cfi;
	pm_frame *frames;         /* max_frames: one thread's walk */
	pm_thread *staged;        /* max_threads, by index: the threads it walked */
	uint16_t *done;           /* a bit per thread of each batch it walked */
	size_t end;               /* bytes in all */
} as_walk_space;
size_t as_walk_space_size(uint32_t max_threads, uint32_t max_frames);
as_walk_space as_walk_space_at(void *base, uint32_t max_threads, uint32_t max_frames);

#endif
