/*
 * stopped_storage.c — what pm_install prepares for a crash, prepared for a
 * process its caller stopped (install.h): one anonymous mapping sized to
 * its threads and frames, MAP_NORESERVE, so that what a capture does not
 * write costs nothing, and the symbolizer's reservation beside it.  NOT
 * AS-safe: a core's reader and the tests run it as ordinary programs.
 */
#include "install.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "as_minidump.h"
#include "as_unwind.h"

/* As pm_install takes them (install.c, configure). */
enum { MAX_THREADS = 1 << 20, MAX_FRAMES = 1 << 16 };

/* Here, not in install.c: a program that prepares storage for a stopped
 * process (a core's reader) links no pm_install, and none of the handlers
 * and hooks it brings (pthread_create's, _exit's). */
size_t
pmi_arena_bytes(uint32_t max_threads, uint32_t max_frames)
{
	size_t per_thread = sizeof(pm_thread) + sizeof(pm_regs) + sizeof(pid_t) + 256;
	return PMI_STRINGS_BYTES + (size_t)max_threads * per_thread + (size_t)max_threads * max_frames * sizeof(pm_frame);
}

/* The next piece of n bytes at align; with no base, only counted. */
static void *
piece(char *base, size_t *used, size_t n, size_t align)
{
	size_t at = (*used + align - 1) & ~(align - 1);
	*used = at + n;
	return base ? base + at : NULL;
}

static void
lay_out(pm_stopped_storage *s, char *base, size_t *used)
{
	size_t t = s->max_threads;
	s->arena_size = pmi_arena_bytes(s->max_threads, s->max_frames);
	s->arena = piece(base, used, s->arena_size, 4096);
	s->slots = piece(base, used, t * sizeof(pm_slot), 64);
	s->tids = piece(base, used, t * sizeof(pid_t), 16);
	s->frames = piece(base, used, s->max_frames * sizeof(pm_frame), 16);
	s->model_images = piece(base, used, PMI_IMAGE_CAP * sizeof(pm_image), 16);
	s->as_images = piece(base, used, PMI_IMAGE_CAP * sizeof(pm_as_image), 16);
	s->as_maps = piece(base, used, PMI_MAP_CAP * sizeof(pm_as_map), 16);
	s->mem_cache = piece(base, used, sizeof(pm_mem_cache), 64);
	s->cfi_cache = piece(base, used, as_cfi_cache_size(), 64);
	s->scratch = piece(base, used, PMI_SCRATCH_CAP, 64);
	s->io_buf = piece(base, used, PMI_IO_CAP, 64);
	s->md_range_cap = t + PM_MD_EXTRA_RANGES;
	s->md_ranges = piece(base, used, s->md_range_cap * sizeof(pm_md_range), 16);
}

bool
pmi_stopped_storage_init(pm_stopped_storage *s, uint32_t max_threads, uint32_t max_frames)
{
	memset(s, 0, sizeof *s);
	if (max_threads == 0 || max_threads > MAX_THREADS || max_frames == 0 || max_frames > MAX_FRAMES) {
		errno = EINVAL;
		return false;
	}
	s->max_threads = max_threads;
	s->max_frames = max_frames;
	size_t used = 0;
	lay_out(s, NULL, &used);
	void *region = mmap(NULL, used, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (region == MAP_FAILED)
		return false;
	s->region = region;
	s->region_size = used;
	used = 0;
	lay_out(s, region, &used);
	s->symbols = pmi_as_symbols_create(PMI_SYMBOL_BYTES);
	as_strlcpy(s->facts.os_name, "Linux", sizeof s->facts.os_name);
	s->facts.late = &s->late;
	return true;
}

void
pmi_stopped_storage_free(pm_stopped_storage *s)
{
	pmi_as_symbols_destroy(&s->symbols);
	if (s->region)
		munmap(s->region, s->region_size);
	memset(s, 0, sizeof *s);
}

as_capture_ctx
pmi_stopped_ctx(pm_stopped_storage *s, const as_target *t, pid_t tid, const siginfo_t *info, const mcontext_t *mc,
                const struct timespec *now, const char *dir, int dir_fd)
{
	pm_capture_state *cap = &s->state;
	if (info)
		cap->crash_info = *info;
	cap->crash_mc = *mc;
	return (as_capture_ctx){
		.target = *t, .stopped = s->slots,
		.tid = tid, .signal = info ? info->si_signo : 0, .info = info ? &cap->crash_info : NULL,
		.mc = &cap->crash_mc, .now = *now,
		.facts = &s->facts, .pending_dir = dir, .max_threads = s->max_threads, .max_frames = s->max_frames,
		.minidump = true,
		.report = &cap->report, .arena = s->arena, .arena_size = s->arena_size,
		.tids = s->tids, .frame_tmp = s->frames, .model_images = s->model_images,
		.images = &cap->images, .as_images = s->as_images, .as_maps = s->as_maps,
		.image_cap = PMI_IMAGE_CAP, .map_cap = PMI_MAP_CAP,
		.mem_cache = s->mem_cache, .cfi_cache = s->cfi_cache, .mem = &s->mem,
		.symbols = s->symbols.work ? &s->symbols : NULL,
		.scratch = s->scratch, .scratch_cap = PMI_SCRATCH_CAP, .io_buf = s->io_buf, .io_cap = PMI_IO_CAP,
		.md_ranges = s->md_ranges, .md_range_cap = s->md_range_cap,
		.phases = &cap->phases, .generation = &s->generation,
		.crash_path = cap->crash_path, .json_path = cap->json_path, .minidump_path = cap->minidump_path,
		.dir_fd = dir_fd,
	};
}
