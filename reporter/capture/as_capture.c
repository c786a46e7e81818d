/*
 * as_capture.c — AS-SAFE: freeze, images, header, threads (see
 * as_capture.h); and the same after the freeze for a process whose threads
 * its caller stopped.
 *
 * The other threads are asked to stop first: from then on none runs its own
 * code, so the images are scanned while they answer, and each thread is
 * walked once it has answered (as_fill_threads waits for the ones not in yet).
 */
#include "as_capture.h"
#include "model.h"

#include "as_memory.h"
#include "as_symbols.h"
#include "as_unwind.h"

/* The report emptied, and the caches made to read the target. */
static void
begin(const as_capture_ctx *c)
{
	as_facts_read(c->facts, &c->target, c->scratch, c->scratch_cap);
	pmi_report_init_fixed(c->report, c->arena, c->arena_size);
	(*c->generation)++;
	as_mem_cache_reset(c->mem_cache, &c->target.mem);
	as_cfi_cache_clear(c->cfi_cache);
	*c->mem = as_mem_cached(c->mem_cache);
}

/* The images and the header.  The images' first pages are each read once:
 * from the target directly, not through the cache (as_images.c). */
static void
scan(const as_capture_ctx *c)
{
	pm_report *r = c->report;
	r->images = c->model_images;
	*c->images = (pm_as_images){ .images = c->as_images, .cap = c->image_cap,
	                             .maps = c->as_maps, .map_cap = c->map_cap };
	as_images_scan(c->images, r, &c->target, c->facts->exe_path, c->scratch, c->scratch_cap);
	as_fill_header(r, c->facts, &c->now, &c->target);
}

void
as_capture(const as_capture_ctx *c)
{
	uint64_t t = as_sys_now_ns();
	*c->phases = (pm_crash_phases){ 0 };
	as_frozen frozen = as_freeze_ask(c);
	size_t n = frozen.n;
	if (n == 0) {
		c->tids[0] = c->tid; /* no /proc: report at least ourselves */
		n = frozen.n = 1;
	}
	c->phases->freeze = as_sys_lap_ns(&t);
	as_prefault_capture(c, n);
	as_mem_self_begin();
	begin(c);
	/* Woken now that the reset chose how memory is read, a thread lent to
	 * the walks is ready when they begin. */
	as_lend_walks(c, n);
	c->report->threads_truncated = frozen.truncated;
	scan(c);
	c->phases->images = as_sys_lap_ns(&t);
	as_fill_threads(c, &frozen, n);
	c->phases->threads = as_sys_lap_ns(&t);
}

void
as_capture_stopped(const as_capture_ctx *c, size_t n)
{
	uint64_t t = as_sys_now_ns();
	*c->phases = (pm_crash_phases){ 0 };
	size_t walked = n < c->max_threads ? n : c->max_threads;
	for (size_t i = 0; i < walked; i++)
		c->tids[i] = c->stopped[i].tid;
	as_prefault_capture(c, walked);
	begin(c);
	c->report->threads_truncated = walked < n;
	scan(c);
	c->phases->images = as_sys_lap_ns(&t);
	as_fill_threads(c, NULL, walked);
	c->phases->threads = as_sys_lap_ns(&t);
	if (c->signal != 0)
		as_fill_exception(c->report, c->facts, c->signal, c->info, &c->target);
	as_capture_symbols(c);
}

void
as_capture_symbols(const as_capture_ctx *c)
{
	uint64_t t = as_sys_now_ns();
	if (c->symbols)
		as_symbolize(c->symbols, c->report, c->images, c->mem);
	c->phases->symbols = as_sys_lap_ns(&t);
}
