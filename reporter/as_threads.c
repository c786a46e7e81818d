/*
 * as_threads.c — AS-SAFE: one report thread per listed tid, with its name,
 * its registers and its stack walked from the context it stopped in.
 */
#include <string.h>
#include <sys/mman.h>

#include "arch.h"
#include "arena.h"
#include "as_cfi_cache.h"
#include "as_freeze.h"
#include "as_report.h"
#include "as_sys.h"
#include "as_unwind.h"
#include "as_util.h"
#include "as_walker.h"

/* "did not stop (state S)": the kernel's one-letter state from .../stat. */
static const char *
not_captured_note(pm_arena *a, pid_t tid, bool blocked)
{
	char stat[512], note[96];
	as_strlcpy(note, blocked ? "blocks the signal that stops threads for the report"
	                            : "did not stop for the report", sizeof note);
	long n = as_read_proc("/proc/self/task/", tid, "stat", stat, sizeof stat);
	/* The state follows the last ')' of "pid (comm) S ...": comm may hold ')'. */
	const char *close = NULL;
	for (long i = 0; i < n; i++)
		if (stat[i] == ')')
			close = &stat[i];
	if (close && close + 2 < stat + n) {
		char st[2] = { close[2], 0 };
		as_strlcat(note, " (state ", sizeof note);
		as_strlcat(note, st, sizeof note);
		as_strlcat(note, ")", sizeof note);
	}
	return pmi_arena_strdup(a, note);
}

/* What one walker walks with.  The reporting thread's are the capture's;
 * the lent thread's are its own (as_walker.h), so that neither writes
 * what the other reads: stack windows, the memory and CFI caches, the
 * frame buffer, and the arena it copies its threads' names, registers and
 * frames into. */
typedef struct walker {
	pm_mem_cache *cache;
	pm_cfi_cache *cfi;
	pm_frame *frames;         /* max_frames */
	const pm_mem *mem;        /* through cache */
	pm_arena *arena;
	pm_thread *out;           /* by thread index */
	const char *first;        /* the arena's next byte when it began */
	size_t walked, share;     /* threads it walked; threads it expects to (populate_ahead) */
	bool lent;                /* the lent thread: it waits for no answer, and walks only those in */
	const char *self_name;    /* the reporting thread's name (its own walker's) */
} walker;

/* The stack is read through its window, the rest (unwind tables, a stack
 * past the window) through the walker's cache. */
static void
walk(const as_capture_ctx *c, const walker *w, pm_thread *t, const mcontext_t *mc, pm_mem_window *stack)
{
	pm_frame *tmp = w->frames;
	pm_unwind_env env = { .mem = as_mem_windowed(stack), .images = c->images, .cfi_cache = w->cfi };
	pm_cpu cpu;
	const char *stop;
	as_arch_cpu_from_mcontext(mc, &cpu);
	uint32_t n = as_unwind(&env, &cpu, tmp, c->max_frames, &stop);
	for (uint32_t i = 0; i < n; i++) {
		const pm_as_image *im = as_image_for(c->images, pm_frame_lookup_address(&tmp[i], i));
		tmp[i].image = im ? (int32_t)im->model_index : -1;
	}
	t->frames = pmi_arena_copy(w->arena, tmp, n * sizeof *tmp, _Alignof(pm_frame));
	if (!t->frames)
		return;
	t->frame_count = n;
	t->note = stop;
	t->frames_truncated = n == c->max_frames && stop != NULL;
}

static void
fill_registers(pm_arena *a, pm_thread *t, const mcontext_t *mc)
{
	t->regs = pmi_arena_alloc(a, sizeof *t->regs, _Alignof(pm_regs));
	if (!t->regs)
		return;
	as_arch_model_regs(mc, t->crashed, t->regs);
	unsigned cpu;
	if (t->crashed && as_sys_getcpu(&cpu) == 0) {
		t->regs->has_cpu = true;
		t->regs->logical_cpu = cpu;
	}
}

/* The state of tid's freeze slot (SLOT_EMPTY when it has none), in *s its slot. */
static int
slot_state(pid_t tid, pm_slot **s)
{
	*s = as_slot_find(tid);
	return *s ? atomic_load(&(*s)->state) : SLOT_EMPTY;
}

/* The registers of a thread that stopped for the report, or NULL. */
static const mcontext_t *
stopped_in(const as_capture_ctx *c, pid_t tid)
{
	pm_slot *s;
	if (tid == c->tid)
		return c->mc;
	return slot_state(tid, &s) == SLOT_CAPTURED ? &s->mc : NULL;
}

/* The windows of threads [first, first + n): each stack from its pointer
 * up, within its mapping. */
static void
read_windows(const as_capture_ctx *c, const walker *wk, size_t first, size_t n, pm_mem_window *w)
{
	for (size_t k = 0; k < n; k++) {
		const mcontext_t *mc = stopped_in(c, c->tids[first + k]);
		uint64_t sp = mc ? as_arch_sp(mc) : 0;
		const pm_as_map *m = sp ? as_map_for(c->images, sp) : NULL;
		w[k] = (pm_mem_window){ .under = wk->mem };
		if (m && (m->prot & PROT_READ)) {
			w[k].start = sp;
			w[k].end = m->end;
		}
	}
	as_mem_windows_read(wk->cache, w, n);
}

/* The context a thread stopped in, or NULL when it did not answer; in name,
 * the name it told (the reporting thread's: self_name; empty when it did not). */
static const mcontext_t *
context_of(const as_capture_ctx *c, pid_t tid, const char *self_name, int *also_crashed, bool *blocked, char name[16])
{
	*also_crashed = 0;
	*blocked = false;
	name[0] = '\0';
	if (tid == c->tid) {
		memcpy(name, self_name, 16);
		return c->mc;
	}
	pm_slot *s;
	int state = slot_state(tid, &s);
	*blocked = state == SLOT_BLOCKED;
	if (state != SLOT_CAPTURED)
		return NULL;
	*also_crashed = s->signal;
	memcpy(name, s->name, 16);
	return &s->mc;
}

/*
 * Each thread's registers, name and frames fill fresh arena pages at the
 * first crash, a page fault every few threads.  Once a walker's first
 * PROBE_THREADS have shown what a thread takes, the room for the rest of
 * its share is faulted in with one call (as_sys_populate).
 */
enum { PROBE_THREADS = 8 };

static void
populate_ahead(pm_arena *a, const char *first, size_t threads_left)
{
	if (a->cur < first)
		return; /* a growing arena moved to a new block */
	size_t want = (size_t)(a->cur - first) / PROBE_THREADS * threads_left;
	as_sys_populate(a->cur, want < a->left ? want : a->left);
}

/* Thread i into w->out[i]; false (and nothing filled) when w is the lent
 * walker and the thread has not answered (the reporting thread waits for
 * it) or is the reporting thread (its name and CPU are that thread's to tell). */
static bool
fill_thread(const as_capture_ctx *c, walker *w, size_t i, pm_mem_window *window)
{
	pid_t tid = c->tids[i];
	int also;
	bool blocked;
	char name[16];
	if (w->lent && tid == c->tid)
		return false;
	const mcontext_t *mc = context_of(c, tid, w->self_name, &also, &blocked, name);
	if (!mc && w->lent)
		return false;
	if (w->walked++ == PROBE_THREADS && w->share >= 2 * PROBE_THREADS)
		populate_ahead(w->arena, w->first, w->share - PROBE_THREADS);
	pm_thread *t = &w->out[i];
	*t = (pm_thread){ .id = (uint64_t)tid, .number = (uint32_t)i };
	t->name = name[0] ? pmi_arena_strdup(w->arena, name) : as_proc_name(w->arena, "/proc/self/task/", tid);
	t->crashed = c->signal != 0 && tid == c->tid;
	if (!mc) {
		t->note = not_captured_note(w->arena, tid, blocked);
		return true;
	}
	t->captured = true;
	fill_registers(w->arena, t, mc);
	walk(c, w, t, mc, window);
	if (also && !t->note)
		t->note = "crashed too while the report was being written";
	return true;
}

/* The threads of batch b (the threads whose stacks one system call reads)
 * that `want` names, a bit each; the reporting thread waits for their
 * answers first (f), the lent one (f NULL) walks those that are in.
 * Returns the bits of the threads filled. */
static unsigned
walk_batch(const as_capture_ctx *c, as_frozen *f, walker *w, size_t n, size_t b, unsigned want)
{
	size_t first = b * PM_MEM_WINDOWS, count = n - first < PM_MEM_WINDOWS ? n - first : PM_MEM_WINDOWS;
	if (f)
		as_freeze_wait(c, f, first, count);
	pm_mem_window windows[PM_MEM_WINDOWS];
	read_windows(c, w, first, count, windows);
	unsigned done = 0;
	for (size_t k = 0; k < count; k++)
		if ((want >> k & 1) && fill_thread(c, w, first + k, &windows[k]))
			done |= 1u << k;
	return done;
}

enum { ALL_OF_BATCH = (1u << PM_MEM_WINDOWS) - 1 };

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
	bool offered;             /* to a lent thread, in this capture */
	pm_arena arena;           /* the upper half of the report's room */
	pm_mem mem;
	walker w;
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
	as_mem_cache_clear(sp->cache);
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
		unsigned done = walk_batch(&j->c, NULL, &j->w, j->n, b, ALL_OF_BATCH);
		/* Out of room: the batch is the reporting thread's, whole. */
		bool full = pmi_arena_exhausted(&j->arena);
		sp->done[b] = full ? 0 : (uint16_t)done;
		if (!as_walker_done(b) || full)
			return;
	}
}

void
as_lend_walks(const as_capture_ctx *c, size_t n)
{
	job.offered = n >= LEND_MIN_THREADS && c->signal != 0 && c->walk_space && !as_mem_uses_pipe() &&
	              as_walker_claim();
	if (!job.offered) {
		as_walker_dismiss();
		return;
	}
	job.c = *c;
	job.n = n;
	job.space = as_walk_space_at(c->walk_space, c->max_threads, c->max_frames);
	job.mem = as_mem_cached(job.space.cache);
	job.offered = as_walker_offer(help, &job);
}

/* The batches [from, batches) the lent thread did: its threads copied in,
 * the ones it left (they had not answered) walked here. */
static void
take_lent(const as_capture_ctx *c, as_frozen *f, walker *w, size_t n, size_t from, size_t batches)
{
	for (size_t b = from; b < batches; b++) {
		size_t first = b * PM_MEM_WINDOWS, count = n - first < PM_MEM_WINDOWS ? n - first : PM_MEM_WINDOWS;
		unsigned done = job.space.done[b], all = (1u << count) - 1;
		for (size_t k = 0; k < count; k++)
			if (done >> k & 1)
				w->out[first + k] = job.space.staged[first + k];
		if ((done & all) != all)
			walk_batch(c, f, w, n, b, ~done & all);
	}
}

/* The lent thread takes batches from the top, into the upper half of the
 * arena's room, while this one takes them from the bottom. */
static void
walk_shared(const as_capture_ctx *c, as_frozen *f, walker *w, size_t n)
{
	pm_arena *a = w->arena;
	size_t batches = (n + PM_MEM_WINDOWS - 1) / PM_MEM_WINDOWS, half = a->left / 2 & ~(size_t)63;
	pmi_arena_init_fixed(&job.arena, a->cur + a->left - half, half);
	a->left -= half;
	job.w = (walker){ .cache = job.space.cache, .cfi = job.space.cfi, .frames = job.space.frames,
	                  .mem = &job.mem, .arena = &job.arena, .out = job.space.staged,
	                  .first = job.arena.cur, .share = (n + 1) / 2, .lent = true };
	as_walker_start(batches);
	w->share = (n + 1) / 2;
	uint64_t t = as_sys_now_ns();
	size_t b, mine = 0;
	while (as_walker_take_low(&b)) {
		walk_batch(c, f, w, n, b, ALL_OF_BATCH);
		mine++;
	}
	uint64_t patience = mine ? (as_sys_now_ns() - t) / mine * LENT_BATCH_PATIENCE : 0;
	size_t redo, from;
	bool clean;
	as_walker_finish(patience > lent_wait_min_ns ? patience : lent_wait_min_ns, &redo, &from, &clean);
	for (b = redo; b < from; b++)
		walk_batch(c, f, w, n, b, ALL_OF_BATCH);
	take_lent(c, f, w, n, from, batches);
	/* The lent thread writes no more: what follows goes where more room is left. */
	if (clean && job.arena.left > a->left) {
		bool exhausted = a->exhausted;
		*a = job.arena;
		a->exhausted = exhausted;
	}
}

void
as_fill_threads(const as_capture_ctx *c, as_frozen *f)
{
	size_t n = f->n;
	pm_report *r = c->report;
	r->threads = pmi_arena_alloc(r->arena, n * sizeof *r->threads, _Alignof(pm_thread));
	if (!r->threads) {
		if (job.offered)
			as_walker_cancel();
		return;
	}
	char self_name[16];
	as_sys_thread_name(self_name);
	walker w = { .cache = c->mem_cache, .cfi = c->cfi_cache, .frames = c->frame_tmp, .mem = c->mem,
	             .arena = r->arena, .out = r->threads, .first = r->arena->cur, .share = n,
	             .self_name = self_name };
	if (job.offered)
		walk_shared(c, f, &w, n);
	else
		for (size_t b = 0; b * PM_MEM_WINDOWS < n; b++)
			walk_batch(c, f, &w, n, b, ALL_OF_BATCH);
	/* A thread that answered after the lending was decided waits for no job. */
	as_walker_dismiss();
	r->thread_count = n;
	for (size_t i = 0; i < n; i++)
		if (r->threads[i].crashed)
			r->exception.triggered_thread = (int32_t)i;
}
