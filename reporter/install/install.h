/*
 * install.h — the door of reporter/install: install-time pieces (NOT
 * AS-safe), the same storage prepared for a process its caller stopped,
 * and a Go executable's own code (go_text.h).
 */
#ifndef PM_REPORTER_INSTALL_H
#define PM_REPORTER_INSTALL_H

#include "as_capture.h"
#include "go_text.h"
#include "reports_dir.h"

/* Read the process facts the handler will copy into every report. */
void pmi_facts_gather(pm_facts *f, const pm_config *cfg, char *exe_room /* PATH_MAX */);

/* The preload library's answer to "did you install postmortem in this
 * program image?": a function `bool (void)` it exports (preload.c), which a
 * copy of libpostmortem loaded into the same image asks through the loader
 * (install.c). */
#define PMI_PRELOAD_INSTALLED "pmi_preload_installed"

/* The uploader the crash handler starts (as_upload_now.h), prepared for pm_install's
 * reports directory when a destination is known (upload_now.c); released by pm_uninstall. */
void pmi_upload_now_prepare(const pm_config *cfg, const char *reports_dir);
void pmi_upload_now_release(void);

/* The capture storage's fixed pieces, a crash's (install.c) and a stopped
 * process's alike: the image and map tables' entries, the writer's and
 * the scratch buffers, the report's room for strings beside its threads,
 * the symbolizer's working memory. */
enum {
	PMI_IMAGE_CAP = 4096,
	PMI_MAP_CAP = 65536,
	PMI_IO_CAP = 64 * 1024,
	PMI_SCRATCH_CAP = 64 * 1024,
	PMI_STRINGS_BYTES = 8 * 1024 * 1024,
	PMI_SYMBOL_BYTES = 48 * 1024 * 1024,
};
/* The report arena of a capture of max_threads threads of max_frames frames. */
size_t pmi_arena_bytes(uint32_t max_threads, uint32_t max_frames);

/*
 * The storage of a capture of a process its caller stopped
 * (as_capture_stopped), prepared as pm_install prepares a crash's, sized
 * to that process (stopped_storage.c): a core's reader, tests/seam.  The
 * caller fills facts (exe_path, exe_name, app_id, app_version; os_name is
 * "Linux") and slots[0, n), its threads as the capture reads them.
 */
typedef struct pm_stopped_storage {
	pm_facts facts;
	pm_late_facts late;
	pm_capture_state state;
	pm_slot *slots;           /* max_threads */
	uint32_t max_threads, max_frames;
	unsigned generation;
	pm_mem mem;
	void *region;             /* one mapping holds what follows, MAP_NORESERVE */
	size_t region_size;
	void *arena;
	size_t arena_size;
	pid_t *tids;
	pm_frame *frames;
	pm_image *model_images;
	pm_as_image *as_images;
	pm_as_map *as_maps;
	pm_mem_cache *mem_cache;
	struct pm_cfi_cache *cfi_cache;
	char *scratch, *io_buf;
	struct pm_md_range *md_ranges;
	size_t md_range_cap;
	pm_as_symbols symbols;    /* reserved apart, as pm_install reserves it */
} pm_stopped_storage;

/* Storage for max_threads threads of max_frames frames each; false (errno)
 * when it cannot be mapped or the counts are out of range. */
bool pmi_stopped_storage_init(pm_stopped_storage *s, uint32_t max_threads, uint32_t max_frames);
void pmi_stopped_storage_free(pm_stopped_storage *s);
/* The context of a capture of target t over s: thread tid crashed as info
 * says (NULL: a snapshot), with registers mc, at now; the files go into
 * dir_fd, named under dir in the paths the context hands back. */
as_capture_ctx pmi_stopped_ctx(pm_stopped_storage *s, const as_target *t, pid_t tid, const siginfo_t *info,
                               const mcontext_t *mc, const struct timespec *now, const char *dir, int dir_fd);

#endif
