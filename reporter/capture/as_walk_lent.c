/*
 * as_walk_lent.c — AS-SAFE: the walks shared with a frozen thread lent to
 * them (see as_walk_lent.h and as_walker.h).
 */
#include "as_walk_lent.h"

#include <string.h>

#include "as_freeze.h"
#include "as_memory.h"
#include "as_walker.h"
#include "model.h"

/*
 * From this many threads a frozen thread walks beside the reporting thread
 * (as_walker.h).  Below it the lent thread's start (its wakeup on the other
 * CPU, its caches cold: each CFI row it needs found again) costs more than
 * its share saves (docs/architecture.md, "Two walkers").
 */
enum { LEND_MIN_THREADS = 96 };

/* How long the reporting thread waits for the lent thread's batch under way,
 * in its own batches' time: past it, it walks that batch itself. */
enum { LENT_BATCH_PATIENCE = 4 };
static const uint64_t lent_wait_min_ns = 1000000;

size_t
as_walk_space_size(uint32_t max_threads, uint32_t max_frames)
{
	return as_walk_space_at(NULL, max_threads, max_frames).end;
}

/* Each piece 64-byte aligned, from base (NULL: only the offsets). */
static void *
piece(char *base, size_t *at, size_t n)
{
	size_t here = (*at + 63) & ~(size_t)63;
	*at = here + n;
	return base ? base + here : NULL;
}

as_walk_space
as_walk_space_at(void *base, uint32_t max_threads, uint32_t max_frames)
{
	as_walk_space s;
	size_t at = 0;
	s.cache = piece(base, &at, sizeof *s.cache);
	s.cfi = piece(base, &at, as_cfi_cache_size());
	s.frames = piece(base, &at, (size_t)max_frames * sizeof *s.frames);
	s.staged = piece(base, &at, (size_t)max_threads * sizeof *s.staged);
	s.done = piece(base, &at, ((size_t)max_threads / PM_MEM_WINDOWS + 1) * sizeof *s.done);
	s.end = at;
	return s;
}

/* The lent thread's walk: persistent, since a lent thread given up on may
 * still read it after the reporting thread has moved on. */
static struct walk_job {
	as_capture_ctx c;
	size_t n;
	bool worth;               /* enough threads, a crash, reads a second reader may make */
	bool offered;             /* to a lent thread, in this capture */
	pm_arena arena;           /* the upper half of the report's room */
	pm_mem mem;
	thread_walker w;
	as_walk_space space;
} job;

/* What the lent thread's first batches would otherwise fault in page by
 * page: about what a capture of the benchmark's threads fills. */
enum { PREPARED_LINES = 32, PREPARED_ROWS = 64, PREPARED_FRAMES = 64 };

/* Its own caches emptied and their first pages faulted in, while the
 * reporting thread scans the images; then its batches, from the top. */
static void
help(void *arg)
{
	struct walk_job *j = arg;
	as_walk_space *sp = &j->space;
	as_mem_cache_reset(sp->cache, &j->c.target.mem);
	as_cfi_cache_clear(sp->cfi);
	as_sys_populate(sp->cache->window, sizeof sp->cache->window);
	as_sys_populate(sp->cache->line, PREPARED_LINES * PM_MEM_LINE);
	as_cfi_cache_populate(sp->cfi, PREPARED_ROWS);
	size_t frames = j->c.max_frames < PREPARED_FRAMES ? j->c.max_frames : PREPARED_FRAMES;
	as_sys_populate(sp->frames, frames * sizeof *sp->frames);
	size_t mine = (j->n + 1) / 2 + PM_MEM_WINDOWS;
	mine = mine < j->n ? mine : j->n;
	as_sys_populate(&sp->staged[j->n - mine], mine * sizeof *sp->staged);
	if (!as_walker_wait_batches())
		return;
	size_t b;
	while (as_walker_take_high(&b)) {
		unsigned done = as_walk_batch(&j->c, NULL, &j->w, j->n, b, AS_WHOLE_BATCH);
		/* Out of room: the batch is the reporting thread's, whole. */
		bool full = pmi_arena_exhausted(&j->arena);
		sp->done[b] = full ? 0 : (uint16_t)done;
		if (!as_walker_done(b) || full)
			return;
	}
}

/* Offer the job to a thread waiting for one, if there is one.  One that
 * may run only on this thread's CPU would take no share: none is asked
 * again in this capture. */
static bool
offer(void)
{
	if (!as_walker_claim())
		return false;
	job.space = as_walk_space_at(job.c.walk_space, job.c.max_threads, job.c.max_frames);
	job.mem = as_mem_cached(job.space.cache);
	job.worth = as_walker_offer(help, &job);
	return job.worth;
}

void
as_lend_walks(const as_capture_ctx *c, size_t n)
{
	job.worth = n >= LEND_MIN_THREADS && c->signal != 0 && c->walk_space && !as_mem_uses_pipe();
	job.offered = false;
	/* Not worth walking with, the waiting thread is kept for the landing
	 * (as_write.c dismisses it). */
	if (!job.worth)
		return;
	job.c = *c;
	job.n = n;
	job.offered = offer();
}

void
as_lend_cancel(void)
{
	if (job.offered)
		as_walker_cancel();
}

/* The batches [from, batches) the lent thread did: its threads copied in,
 * the ones it left (they had not answered) walked here. */
static void
take_lent(const as_capture_ctx *c, as_frozen *f, thread_walker *w, size_t n, size_t from, size_t batches)
{
	for (size_t b = from; b < batches; b++) {
		size_t first = b * PM_MEM_WINDOWS, count = n - first < PM_MEM_WINDOWS ? n - first : PM_MEM_WINDOWS;
		unsigned done = job.space.done[b], all = (1u << count) - 1;
		for (size_t k = 0; k < count; k++)
			if (done >> k & 1)
				w->out[first + k] = job.space.staged[first + k];
		if ((done & all) != all)
			as_walk_batch(c, f, w, n, b, ~done & all);
	}
}

/* Batches [first, batches) shared: the lent thread takes them from the top,
 * into the upper half of the arena's room, while this one takes them from
 * the bottom.  A thread that answered after as_lend_walks looked (on a
 * busy machine the answers may come after the reporting thread got there)
 * is offered the job now, before any batch of this thread's. */
bool
as_walk_lent(const as_capture_ctx *c, as_frozen *f, thread_walker *w, size_t n, size_t first)
{
	if (!job.worth || (!job.offered && !(job.offered = offer())))
		return false;
	pm_arena *a = w->arena;
	size_t batches = (n + PM_MEM_WINDOWS - 1) / PM_MEM_WINDOWS, half = a->left / 2 & ~(size_t)63;
	pmi_arena_init_fixed(&job.arena, a->cur + a->left - half, half);
	a->left -= half;
	job.w = (thread_walker){ .cache = job.space.cache, .cfi = job.space.cfi, .frames = job.space.frames,
	                         .mem = &job.mem, .arena = &job.arena, .out = job.space.staged,
	                         .first = job.arena.cur, .share = (n + 1) / 2, .lent = true };
	as_walker_start(first, batches);
	w->share = (n - first * PM_MEM_WINDOWS + 1) / 2;
	uint64_t t = as_sys_now_ns();
	size_t b, mine = 0;
	while (as_walker_take_low(&b)) {
		as_walk_batch(c, f, w, n, b, AS_WHOLE_BATCH);
		mine++;
	}
	uint64_t patience = mine ? (as_sys_now_ns() - t) / mine * LENT_BATCH_PATIENCE : 0;
	size_t redo, from;
	bool clean;
	as_walker_finish(patience > lent_wait_min_ns ? patience : lent_wait_min_ns, &redo, &from, &clean);
	for (b = redo; b < from; b++)
		as_walk_batch(c, f, w, n, b, AS_WHOLE_BATCH);
	take_lent(c, f, w, n, from, batches);
	/* The lent thread writes no more: what follows goes where more room is left. */
	if (clean && job.arena.left > a->left) {
		bool exhausted = a->exhausted;
		*a = job.arena;
		a->exhausted = exhausted;
	}
	return true;
}
