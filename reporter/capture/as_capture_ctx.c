/*
 * as_capture_ctx.c — AS-SAFE: the capture context built over the state
 * pm_install prepared (see as_capture_ctx.h).
 */
#include "as_capture_ctx.h"
#include "as_walk_lent.h"

/* A lent walker's space ends the region (install.c's lay_out). */
static void *
walk_space(const pm_state *g)
{
	size_t n = as_walk_space_size(g->max_threads, g->max_frames);
	return g->region && g->region_size >= n ? (char *)g->region + g->region_size - n : NULL;
}

as_capture_ctx
as_capture_ctx_of(pm_state *g, pid_t tid, const mcontext_t *mc, int sig, const siginfo_t *info,
                  const struct timespec *now)
{
	return (as_capture_ctx){
		.target = as_target_self(),
		.tid = tid, .signal = sig, .info = info, .mc = mc, .now = now ? *now : (struct timespec){ 0 },
		.facts = &g->facts, .pending_dir = g->pending_dir,
		.max_threads = g->max_threads, .max_frames = g->max_frames,
		.freeze_signal = g->freeze_signal, .freeze_timeout_ms = g->freeze_timeout_ms,
		.minidump = g->minidump, .minidump_environ = g->minidump_environ,
		.report = &g->cap->report, .arena = g->arena_mem, .arena_size = g->arena_size,
		.tids = g->tids, .frame_tmp = g->frame_tmp, .model_images = g->model_images,
		.images = &g->cap->images, .as_images = g->as_images, .as_maps = g->as_maps,
		.image_cap = g->image_cap, .map_cap = g->map_cap,
		.mem_cache = g->mem_cache, .cfi_cache = g->cfi_cache, .mem = &g->mem, .symbols = &g->symbols,
		.walk_space = walk_space(g),
		.scratch = g->scratch, .scratch_cap = g->scratch_cap, .io_buf = g->io_buf, .io_cap = g->io_cap,
		.md_ranges = g->md_ranges, .md_range_cap = g->md_range_cap,
		.phases = &g->cap->phases, .generation = &g->capture_generation,
		.crash_path = g->cap->crash_path, .json_path = g->cap->json_path, .minidump_path = g->cap->minidump_path,
		.dir_fd = -1,
	};
}
