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
pm_as_capture(pid_t self, const mcontext_t *self_mc, bool self_crashed, const struct timespec *now)
{
	pm_report *r = &pm_g.report;
	bool truncated;
	uint64_t t = pm_sys_now_ns();
	pm_g.phases = (pm_crash_phases){ 0 };
	size_t n = pm_as_freeze(self, pm_g.tids, pm_g.max_threads, &truncated);
	if (n == 0) {
		pm_g.tids[0] = self; /* no /proc: report at least ourselves */
		n = 1;
	}
	pm_g.phases.freeze = pm_sys_lap_ns(&t);
	pm_report_init_fixed(r, pm_g.arena_mem, pm_g.arena_size);
	pm_g.capture_generation++;
	pm_as_mem_cache_reset(pm_g.mem_cache);
	pm_cfi_cache_clear(pm_g.cfi_cache);
	pm_g.mem = pm_as_mem_cached(pm_g.mem_cache);
	r->threads_truncated = truncated;
	r->images = pm_g.model_images;
	pm_g.images = (pm_as_images){ .images = pm_g.as_images, .cap = pm_g.image_cap,
	                              .maps = pm_g.as_maps, .map_cap = pm_g.map_cap };
	pm_as_images_scan(&pm_g.images, r, &pm_g.mem, pm_g.facts.exe_path, pm_g.scratch, pm_g.scratch_cap);
	pm_as_fill_header(r, &pm_g.facts, now);
	pm_g.phases.images = pm_sys_lap_ns(&t);
	pm_as_fill_threads(r, pm_g.tids, n, self, self_mc, self_crashed, pm_g.frame_tmp);
	pm_g.phases.threads = pm_sys_lap_ns(&t);
}

void
pm_as_capture_symbols(void)
{
	uint64_t t = pm_sys_now_ns();
	if (pm_g.symbols)
		pm_as_symbolize(pm_g.symbols, &pm_g.report, &pm_g.images, &pm_g.mem);
	pm_g.phases.symbols = pm_sys_lap_ns(&t);
}
