/*
 * as_walk_batch.c — AS-SAFE: a batch of threads walked (see as_walk_batch.h):
 * each one's name, registers and stack, from the context it stopped in.
 */
#include "as_walk_batch.h"

#include <string.h>
#include <sys/mman.h>

#include "as_freeze.h"
#include "as_memory.h"
#include "as_report.h"
#include "as_unwind.h"
#include "model.h"

/* "did not stop (state S)": the kernel's one-letter state from .../stat. */
static const char *
not_captured_note(pm_arena *a, const as_target *t, pid_t tid, bool blocked)
{
	char stat[512], note[96];
	as_strlcpy(note, blocked ? "blocks the signal that stops threads for the report"
	                            : "did not stop for the report", sizeof note);
	long n = as_target_read(t, tid, "stat", stat, sizeof stat);
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

/* The stack is read through its window, the rest (unwind tables, a stack
 * past the window) through the walker's cache. */
static void
walk(const as_capture_ctx *c, const thread_walker *w, pm_thread *t, const mcontext_t *mc, pm_mem_window *stack)
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
fill_registers(pm_arena *a, pm_thread *t, const mcontext_t *mc, bool stopped)
{
	t->regs = pmi_arena_alloc(a, sizeof *t->regs, _Alignof(pm_regs));
	if (!t->regs)
		return;
	as_arch_model_regs(mc, t->crashed, t->regs);
	unsigned cpu;
	/* The crashed thread's CPU is the one this runs on, in our own process. */
	if (t->crashed && !stopped && as_sys_getcpu(&cpu) == 0) {
		t->regs->has_cpu = true;
		t->regs->logical_cpu = cpu;
	}
}

/* The state of thread i's slot (SLOT_EMPTY when it has none), in *s its
 * slot: the freeze's, or the one its caller filled (c->stopped). */
static int
slot_state(const as_capture_ctx *c, size_t i, const pm_slot **s)
{
	if (c->stopped) {
		*s = &c->stopped[i];
		return (*s)->state;
	}
	pm_slot *found = as_slot_find(c->tids[i]);
	*s = found;
	return found ? atomic_load(&found->state) : SLOT_EMPTY;
}

/* The registers of thread i if it stopped for the report, else NULL.  Ours
 * (the reporting thread) are the capture's. */
static const mcontext_t *
stopped_in(const as_capture_ctx *c, size_t i)
{
	const pm_slot *s;
	if (!c->stopped && c->tids[i] == c->tid)
		return c->mc;
	return slot_state(c, i, &s) == SLOT_CAPTURED ? &s->mc : NULL;
}

/* The windows of threads [first, first + n): each stack from its pointer
 * up, within its mapping. */
static void
read_windows(const as_capture_ctx *c, const thread_walker *wk, size_t first, size_t n, pm_mem_window *w)
{
	for (size_t k = 0; k < n; k++) {
		const mcontext_t *mc = stopped_in(c, first + k);
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

/* The context thread i stopped in, or NULL when it did not answer; in
 * name, the name it told (the reporting thread's: self_name; empty when it
 * did not). */
static const mcontext_t *
context_of(const as_capture_ctx *c, size_t i, const char *self_name, int *also_crashed, bool *blocked,
           char name[16])
{
	*also_crashed = 0;
	*blocked = false;
	name[0] = '\0';
	if (!c->stopped && c->tids[i] == c->tid) {
		memcpy(name, self_name, 16);
		return c->mc;
	}
	const pm_slot *s;
	int state = slot_state(c, i, &s);
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
fill_thread(const as_capture_ctx *c, thread_walker *w, size_t i, pm_mem_window *window)
{
	pid_t tid = c->tids[i];
	int also;
	bool blocked;
	char name[16];
	if (w->lent && tid == c->tid)
		return false;
	const mcontext_t *mc = context_of(c, i, w->self_name, &also, &blocked, name);
	if (!mc && w->lent)
		return false;
	if (w->walked++ == PROBE_THREADS && w->share >= 2 * PROBE_THREADS)
		populate_ahead(w->arena, w->first, w->share - PROBE_THREADS);
	pm_thread *t = &w->out[i];
	*t = (pm_thread){ .id = (uint64_t)tid, .number = (uint32_t)i };
	t->name = name[0] ? pmi_arena_strdup(w->arena, name) : as_thread_name(w->arena, &c->target, tid);
	t->crashed = c->signal != 0 && tid == c->tid;
	if (!mc) {
		t->note = not_captured_note(w->arena, &c->target, tid, blocked);
		return true;
	}
	t->captured = true;
	fill_registers(w->arena, t, mc, c->stopped != NULL);
	walk(c, w, t, mc, window);
	if (also && !t->note)
		t->note = "crashed too while the report was being written";
	return true;
}

unsigned
as_walk_batch(const as_capture_ctx *c, as_frozen *f, thread_walker *w, size_t n, size_t b, unsigned want)
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
