/*
 * as_walk_batch.h — AS-SAFE: walk a batch of threads, the threads whose
 * stacks one system call reads, with one walker's own tools.
 */
#ifndef PM_REPORTER_AS_WALK_BATCH_H
#define PM_REPORTER_AS_WALK_BATCH_H

#include "as_capture_ctx.h"
#include "as_unwind.h"

struct as_frozen;

/* What one walker walks with.  The reporting thread's are the capture's;
 * a lent thread's are its own (as_walker.h), so that neither writes
 * what the other reads: stack windows, the memory and CFI caches, the
 * frame buffer, and the arena it copies its threads' names, registers and
 * frames into. */
typedef struct thread_walker {
	pm_mem_cache *cache;
	pm_cfi_cache *cfi;
	pm_frame *frames;         /* max_frames */
	const pm_mem *mem;        /* through cache */
	pm_arena *arena;
	pm_thread *out;           /* by thread index */
	const char *first;        /* the arena's next byte when it began */
	size_t walked, share;     /* threads it walked; threads it expects to (as_sys_populate ahead) */
	bool lent;                /* the lent thread: it waits for no answer, and walks only those in */
	const char *self_name;    /* the reporting thread's name (its own walker's) */
} thread_walker;

enum { AS_WHOLE_BATCH = (1u << PM_MEM_WINDOWS) - 1 };

/* The threads of batch b of c->tids[0, n) that `want` names, a bit each,
 * into w->out; the reporting thread waits for their answers first (f), a
 * lent walker (f NULL) walks those that are in, never the reporting thread.
 * Returns the bits of the threads filled. */
unsigned as_walk_batch(const as_capture_ctx *c, struct as_frozen *f, thread_walker *w, size_t n, size_t b,
                       unsigned want);

#endif
