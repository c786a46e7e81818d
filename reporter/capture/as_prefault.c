/*
 * as_prefault.c — AS-SAFE: a capture's fresh pages populated ahead (see
 * as_prefault.h).  The sizes are what the crash benchmark's captures wrote
 * (perf's page-fault events of the reporting thread, mapped to regions); a
 * capture that writes past them faults for the rest as before.
 */
#include "as_prefault.h"
#include "model.h"

#include <stdint.h>

#include "as_memory.h"
#include "as_unwind.h"

/* The handler's calls reach 13-14 KiB below its frame (reading an image's
 * first page into a buffer on the stack is the deepest). */
enum { PAGE = 4096, STACK_DEPTH = 16 * 1024 };

static void
populate(void *p, size_t want, size_t cap)
{
	if (p)
		as_sys_populate(p, want < cap ? want : cap);
}

void
as_prefault_entry(const as_capture_ctx *c, const void *sp, const stack_t *alt)
{
	uintptr_t top = (uintptr_t)sp, lo = (uintptr_t)alt->ss_sp;
	if (!(alt->ss_flags & SS_DISABLE) && top > lo && top - lo <= alt->ss_size) {
		uintptr_t from = top - lo > STACK_DEPTH ? top - STACK_DEPTH : lo;
		as_sys_populate((void *)from, top - from);
	}
	/* The whole list up to 4096 threads (one page for pm_config's default
	 * max_threads), before the listing fills it. */
	populate(c->tids, 4 * PAGE, c->max_threads * sizeof *c->tids);
	populate(c->scratch, PAGE, c->scratch_cap);
}

enum {
	/* Threads whose room in the arena is populated here: as_fill_threads
	 * populates the rest once it has seen what these took. */
	FIRST_THREADS = 8,
	/* A thread's room beyond its pm_thread: registers, its name, and this
	 * many frames (the benchmark's threads are about 35 deep). */
	FRAMES_GUESS = 40,
	/* Images in the populated part of both image tables. */
	IMAGES_GUESS = 32,
	/* Memory-cache lines the walks and the symbol lookups fill: about 8
	 * for one thread, 28 from 17 threads up (threads of one program share
	 * their unwind tables). */
	LINES_ONE = 8,
	LINES_MANY = 28,
	/* The CFI cache's index (a page) and the first rows: 40 rows at 257
	 * threads of the benchmark. */
	CFI_BYTES = 4 * PAGE,
};

void
as_prefault_capture(const as_capture_ctx *c, size_t threads)
{
	size_t first = threads < FIRST_THREADS ? threads : FIRST_THREADS;
	size_t room = sizeof(pm_regs) + 16 + FRAMES_GUESS * sizeof(pm_frame);
	populate(c->arena, PAGE + threads * sizeof(pm_thread) + first * room, c->arena_size);
	populate(c->as_images, IMAGES_GUESS * sizeof *c->as_images, c->image_cap * sizeof *c->as_images);
	populate(c->model_images, IMAGES_GUESS * sizeof *c->model_images, c->image_cap * sizeof *c->model_images);
	populate(c->frame_tmp, PAGE, c->max_frames * sizeof *c->frame_tmp);
	size_t lines = threads > 1 ? LINES_MANY : LINES_ONE;
	populate(c->mem_cache, offsetof(pm_mem_cache, line) + lines * PM_MEM_LINE, sizeof *c->mem_cache);
	if (c->mem_cache) {
		/* Each stack window in use is filled whole. */
		size_t windows = threads < PM_MEM_WINDOWS ? threads : PM_MEM_WINDOWS;
		populate(c->mem_cache->window, windows * PM_MEM_WINDOW, sizeof c->mem_cache->window);
	}
	populate(c->cfi_cache, CFI_BYTES, as_cfi_cache_size());
}
