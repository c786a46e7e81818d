/*
 * as_capture.c — AS-SAFE: freeze, images, header, threads (see as_capture.h).
 *
 * The other threads are stopped first, so their stacks do not move while
 * the images are scanned and every stack is walked.
 */
#include "as_capture.h"
#include "model.h"

#include "as_cfi_cache.h"
#include "as_freeze.h"
#include "as_report.h"
#include "as_symbols.h"
#include "as_sys.h"

void
as_capture(pid_t self, const mcontext_t *self_mc, bool self_crashed, const struct timespec *now)
{
	pm_report *r = &as_g.report;
	bool truncated;
	uint64_t t = as_sys_now_ns();
	as_g.phases = (pm_crash_phases){ 0 };
	size_t n = as_freeze(self, as_g.tids, as_g.max_threads, &truncated);
	if (n == 0) {
		as_g.tids[0] = self; /* no /proc: report at least ourselves */
		n = 1;
	}
	as_g.phases.freeze = as_sys_lap_ns(&t);
	pmi_report_init_fixed(r, as_g.arena_mem, as_g.arena_size);
	as_g.capture_generation++;
	as_mem_cache_reset(as_g.mem_cache);
	as_cfi_cache_clear(as_g.cfi_cache);
	as_g.mem = as_mem_cached(as_g.mem_cache);
	r->threads_truncated = truncated;
	r->images = as_g.model_images;
	as_g.images = (pm_as_images){ .images = as_g.as_images, .cap = as_g.image_cap,
	                              .maps = as_g.as_maps, .map_cap = as_g.map_cap };
	as_images_scan(&as_g.images, r, &as_g.mem, as_g.facts.exe_path, as_g.scratch, as_g.scratch_cap);
	as_fill_header(r, &as_g.facts, now);
	as_g.phases.images = as_sys_lap_ns(&t);
	as_fill_threads(r, as_g.tids, n, self, self_mc, self_crashed, as_g.frame_tmp);
	as_g.phases.threads = as_sys_lap_ns(&t);
}

void
as_capture_symbols(void)
{
	uint64_t t = as_sys_now_ns();
	if (as_g.symbols)
		as_symbolize(as_g.symbols, &as_g.report, &as_g.images, &as_g.mem);
	as_g.phases.symbols = as_sys_lap_ns(&t);
}
