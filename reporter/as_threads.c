/*
 * as_threads.c — AS-SAFE: one report thread per listed tid, with its name,
 * its registers and its stack walked from the context it stopped in.
 */
#include <string.h>
#include <sys/mman.h>

#include "arch.h"
#include "arena.h"
#include "as_freeze.h"
#include "as_report.h"
#include "as_sys.h"
#include "as_unwind.h"
#include "as_util.h"

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

/* The stack is read through its window, the rest (unwind tables, a stack
 * past the window) through the capture's cache. */
static void
walk(const as_capture_ctx *c, pm_thread *t, const mcontext_t *mc, pm_mem_window *stack)
{
	pm_report *r = c->report;
	pm_frame *tmp = c->frame_tmp;
	pm_unwind_env env = { .mem = as_mem_windowed(stack), .images = c->images, .cfi_cache = c->cfi_cache };
	pm_cpu cpu;
	const char *stop;
	as_arch_cpu_from_mcontext(mc, &cpu);
	uint32_t n = as_unwind(&env, &cpu, tmp, c->max_frames, &stop);
	for (uint32_t i = 0; i < n; i++) {
		const pm_as_image *im = as_image_for(c->images, pm_frame_lookup_address(&tmp[i], i));
		tmp[i].image = im ? (int32_t)im->model_index : -1;
	}
	t->frames = pmi_arena_copy(r->arena, tmp, n * sizeof *tmp, _Alignof(pm_frame));
	if (!t->frames)
		return;
	t->frame_count = n;
	t->note = stop;
	t->frames_truncated = n == c->max_frames && stop != NULL;
}

static void
fill_registers(pm_report *r, pm_thread *t, const mcontext_t *mc)
{
	t->regs = pmi_arena_alloc(r->arena, sizeof *t->regs, _Alignof(pm_regs));
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
read_windows(const as_capture_ctx *c, size_t first, size_t n, pm_mem_window *w)
{
	for (size_t k = 0; k < n; k++) {
		const mcontext_t *mc = stopped_in(c, c->tids[first + k]);
		uint64_t sp = mc ? as_arch_sp(mc) : 0;
		const pm_as_map *m = sp ? as_map_for(c->images, sp) : NULL;
		w[k] = (pm_mem_window){ .under = c->mem };
		if (m && (m->prot & PROT_READ)) {
			w[k].start = sp;
			w[k].end = m->end;
		}
	}
	as_mem_windows_read(c->mem_cache, w, n);
}

/* The context a thread stopped in, or NULL when it did not answer; in name,
 * the name it told (empty when it did not). */
static const mcontext_t *
context_of(pid_t tid, pid_t self, const mcontext_t *self_mc, int *also_crashed, bool *blocked, char name[16])
{
	*also_crashed = 0;
	*blocked = false;
	name[0] = '\0';
	if (tid == self) {
		as_sys_thread_name(name);
		return self_mc;
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
 * first crash, a page fault every few threads.  Once the first PROBE_THREADS
 * have shown what a thread takes, the room for the rest is faulted in with
 * one call (as_sys_populate).
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

void
as_fill_threads(const as_capture_ctx *c, as_frozen *f)
{
	size_t n = f->n;
	pm_report *r = c->report;
	const pid_t *tids = c->tids;
	pid_t self = c->tid;
	r->threads = pmi_arena_alloc(r->arena, n * sizeof *r->threads, _Alignof(pm_thread));
	if (!r->threads)
		return;
	const char *first = r->arena->cur;
	pm_mem_window windows[PM_MEM_WINDOWS];
	for (size_t i = 0; i < n; i++) {
		if (i == PROBE_THREADS && n >= 2 * PROBE_THREADS)
			populate_ahead(r->arena, first, n - i);
		if (i % PM_MEM_WINDOWS == 0) {
			size_t batch = n - i < PM_MEM_WINDOWS ? n - i : PM_MEM_WINDOWS;
			as_freeze_wait(c, f, i, batch);
			read_windows(c, i, batch, windows);
		}
		pm_thread *t = &r->threads[r->thread_count++];
		int also;
		bool blocked;
		char name[16];
		const mcontext_t *mc = context_of(tids[i], self, c->mc, &also, &blocked, name);
		t->id = (uint64_t)tids[i];
		t->number = (uint32_t)i;
		t->name = name[0] ? pmi_arena_strdup(r->arena, name) : as_proc_name(r->arena, "/proc/self/task/", tids[i]);
		t->crashed = c->signal != 0 && tids[i] == self;
		if (t->crashed)
			r->exception.triggered_thread = (int32_t)i;
		if (!mc) {
			t->note = not_captured_note(r->arena, tids[i], blocked);
			continue;
		}
		t->captured = true;
		fill_registers(r, t, mc);
		walk(c, t, mc, &windows[i % PM_MEM_WINDOWS]);
		if (also && !t->note)
			t->note = "crashed too while the report was being written";
	}
}
