/*
 * as_threads.c — AS-SAFE: one report thread per listed tid, with its name,
 * its registers and its stack walked from the context it stopped in: by
 * the reporting thread alone, or with a frozen thread lent to the walks.
 */
#include "as_freeze.h"
#include "as_memory.h"
#include "as_report.h"
#include "as_walk_lent.h"
#include "model.h"

void
as_fill_threads(const as_capture_ctx *c, as_frozen *f, size_t n)
{
	pm_report *r = c->report;
	r->threads = pmi_arena_alloc(r->arena, n * sizeof *r->threads, _Alignof(pm_thread));
	if (!r->threads) {
		if (f)
			as_lend_cancel();
		return;
	}
	/* A stopped process's threads tell their names in their slots. */
	char self_name[16] = { 0 };
	if (f)
		as_sys_thread_name(self_name);
	thread_walker w = { .cache = c->mem_cache, .cfi = c->cfi_cache, .frames = c->frame_tmp, .mem = c->mem,
	                    .arena = r->arena, .out = r->threads, .first = r->arena->cur, .share = n,
	                    .self_name = self_name };
	for (size_t b = 0; b * PM_MEM_WINDOWS < n && !(f && as_walk_lent(c, f, &w, n, b)); b++)
		as_walk_batch(c, f, &w, n, b, AS_WHOLE_BATCH);
	r->thread_count = n;
	for (size_t i = 0; i < n; i++)
		if (r->threads[i].crashed)
			r->exception.triggered_thread = (int32_t)i;
}
