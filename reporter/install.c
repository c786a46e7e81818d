/*
 * install.c — pm_install / pm_uninstall.  NOT AS-safe: runs at start-up.
 *
 * Everything the handler will need is prepared here, so that at crash time
 * nothing is allocated, opened for configuration or looked up:
 *   1. the reports directory (created 0700, made absolute, refused unless
 *      ours alone or when too long for the handler's paths), a descriptor
 *      of pending/ and spare descriptors held for the handler (as_fds.c),
 *      the process facts;
 *   2. one anonymous mapping holding the report arena, the thread slots,
 *      the image and map tables and the I/O buffers (MAP_NORESERVE: pages
 *      cost nothing until a crash touches them);
 *   3. the fault-free memory reader and the symbol tables' working memory;
 *   4. handlers: the fatal signals (SA_ONSTACK | SA_NODEFER, previous ones
 *      kept for chaining) and a reserved real-time signal that freezes
 *      threads at crash time and sets up alternate stacks at install;
 *   5. alternate stacks for this thread and every existing one.
 */
#include "postmortem-tools.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "altstack.h"
#include "arch.h"
#include "as_cfi_cache.h"
#include "as_control.h"
#include "as_fds.h"
#include "as_handler.h"
#include "as_mem.h"
#include "as_minidump.h"
#include "as_symbols.h"
#include "install.h"
#include "live.h"
#include "state.h"

enum {
	DEFAULT_MAX_THREADS = 1024,
	DEFAULT_MAX_FRAMES = 512,
	DEFAULT_FREEZE_MS = 500,
	IMAGE_CAP = 4096,
	MAP_CAP = 65536,
	IO_CAP = 64 * 1024,
	SCRATCH_CAP = 64 * 1024,
	STRINGS_BYTES = 8 * 1024 * 1024,
	SYMBOL_BYTES = 48 * 1024 * 1024,
	SETUP_WAIT_MS = 200,
	REPORT_NAME_ROOM = 64, /* a report file's name: a UUID and an extension */
};

static const int default_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };

static bool
is_default(int sig)
{
	struct sigaction cur;
	return sigaction(sig, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
}

/* A real-time signal nobody handles, from the top down (glibc keeps the lowest ones). */
static int
pick_control_signal(void)
{
	for (int sig = SIGRTMAX - 1; sig > SIGRTMIN + 2; sig--)
		if (is_default(sig))
			return sig;
	return -1;
}

/* Hands out aligned pieces of the region; with no base it only measures. */
typedef struct carver {
	char *base;
	size_t used, cap;
} carver;

static void *
carve(carver *c, size_t n, size_t align)
{
	size_t at = (c->used + align - 1) & ~(align - 1);
	if (at > c->cap || n > c->cap - at)
		return NULL;
	c->used = at + n;
	return c->base ? c->base + at : NULL;
}

static size_t
arena_bytes(void)
{
	size_t per_thread = sizeof(pm_thread) + sizeof(pm_regs) + sizeof(pid_t) + 256;
	return STRINGS_BYTES + (size_t)pm_g.max_threads * per_thread +
	       (size_t)pm_g.max_threads * pm_g.max_frames * sizeof(pm_frame);
}

/* Every piece the handler uses, in one place: run once to measure the
 * region, once to place the pieces in it. */
static bool
lay_out(carver *c)
{
	pm_g.arena_mem = carve(c, pm_g.arena_size, 64);
	pm_g.slots = carve(c, (size_t)pm_g.max_threads * 2 * sizeof(pm_slot), 64);
	pm_g.as_images = carve(c, IMAGE_CAP * sizeof(pm_as_image), 16);
	pm_g.model_images = carve(c, IMAGE_CAP * sizeof(pm_image), 16);
	pm_g.as_maps = carve(c, MAP_CAP * sizeof(pm_as_map), 16);
	pm_g.io_buf = carve(c, IO_CAP, 64);
	pm_g.scratch = carve(c, SCRATCH_CAP, 64);
	pm_g.frame_tmp = carve(c, pm_g.max_frames * sizeof(pm_frame), 16);
	pm_g.tids = carve(c, pm_g.max_threads * sizeof(pid_t), 16);
	pm_g.mem_cache = carve(c, sizeof(pm_mem_cache), 64);
	pm_g.cfi_cache = carve(c, pm_cfi_cache_size(), 64);
	pm_g.md_ranges = carve(c, pm_g.md_range_cap * sizeof(pm_md_range), 16);
	return pm_g.md_ranges != NULL;
}

static bool
map_region(void)
{
	pm_g.arena_size = arena_bytes();
	pm_g.md_range_cap = (size_t)pm_g.max_threads + PM_MD_EXTRA_RANGES;
	carver measure = { .cap = SIZE_MAX };
	lay_out(&measure);
	pm_g.region_size = measure.used;
	void *mem = mmap(NULL, pm_g.region_size, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return false;
	pm_g.region = mem;
	pm_g.image_cap = IMAGE_CAP;
	pm_g.map_cap = MAP_CAP;
	pm_g.io_cap = IO_CAP;
	pm_g.scratch_cap = SCRATCH_CAP;
	carver c = { .base = mem, .cap = pm_g.region_size };
	return lay_out(&c);
}

static bool
configure(const pm_config *cfg)
{
	errno = EINVAL;
	const int *sigs = cfg && cfg->signals ? cfg->signals : default_signals;
	size_t n = cfg && cfg->signals ? cfg->signal_count : sizeof default_signals / sizeof default_signals[0];
	if (n == 0 || n > PM_MAX_SIGNALS)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (sigs[i] <= 0 || sigs[i] >= SIGRTMIN || sigs[i] == SIGKILL || sigs[i] == SIGSTOP)
			return false;
		pm_g.signals[i] = sigs[i];
	}
	pm_g.signal_count = n;
	pm_g.max_threads = cfg && cfg->max_threads ? cfg->max_threads : DEFAULT_MAX_THREADS;
	pm_g.max_frames = cfg && cfg->max_frames ? cfg->max_frames : DEFAULT_MAX_FRAMES;
	pm_g.freeze_timeout_ms = cfg && cfg->freeze_timeout_ms ? cfg->freeze_timeout_ms : DEFAULT_FREEZE_MS;
	pm_g.on_crash = cfg ? cfg->on_crash : NULL;
	pm_g.on_crash_ctx = cfg ? cfg->on_crash_ctx : NULL;
	const char *md = getenv("POSTMORTEM_MINIDUMP");
	pm_g.minidump = !(cfg && cfg->no_minidump) && !(md && strcmp(md, "0") == 0);
	const char *env = getenv("POSTMORTEM_MINIDUMP_ENVIRON");
	pm_g.minidump_environ = (cfg && cfg->minidump_environ) || (env && strcmp(env, "1") == 0);
	if (pm_g.max_threads > (1u << 20) || pm_g.max_frames > (1u << 16))
		return false;
	if (!pm_config_reports_dir(cfg, pm_g.reports_dir, sizeof pm_g.reports_dir))
		return false;
	int k = snprintf(pm_g.pending_dir, sizeof pm_g.pending_dir, "%s/pending", pm_g.reports_dir);
	/* The handler's full paths (<pending>/<incident id>.<ext>) must fit
	 * whole: refuse here rather than cut them at crash time. */
	if (k <= 0 || (size_t)k + 1 + REPORT_NAME_ROOM >= sizeof pm_g.pending_dir) {
		errno = ENAMETOOLONG;
		return false;
	}
	return true;
}

static bool
install_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = pm_as_on_control;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(pm_g.freeze_signal, &sa, &pm_g.previous_freeze) != 0)
		return false;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = pm_as_on_fatal;
	/* SA_NODEFER: a fault inside the handler comes back to us (see as_handler.c)
	 * instead of the kernel killing the process with the wrong signal. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, pm_g.freeze_signal);
	/* Past RLIMIT_FSIZE a write sends SIGXFSZ, whose default action would
	 * kill the process with the wrong signal; blocked, the write fails with
	 * EFBIG instead.  The fatal signals all sort before it, so the process
	 * still dies of its own. */
	sigaddset(&sa.sa_mask, SIGXFSZ);
	for (size_t i = 0; i < pm_g.signal_count; i++)
		if (sigaction(pm_g.signals[i], &sa, &pm_g.previous[i]) != 0)
			return false;
	return true;
}

static void
restore_handlers(void)
{
	for (size_t i = 0; i < pm_g.signal_count; i++)
		sigaction(pm_g.signals[i], &pm_g.previous[i], NULL);
	if (pm_g.freeze_signal > 0)
		sigaction(pm_g.freeze_signal, &pm_g.previous_freeze, NULL);
}

static void
release_storage(void)
{
	pm_as_fds_close();
	if (pm_g.symbols)
		pm_as_symbols_destroy(pm_g.symbols);
	if (pm_g.region)
		munmap(pm_g.region, pm_g.region_size);
	pm_as_mem_teardown();
}

static int
fail(int err)
{
	restore_handlers();
	release_storage();
	memset(&pm_g, 0, sizeof pm_g);
	errno = err;
	return -1;
}

int
pm_install(const pm_config *cfg)
{
	if (pm_g.installed)
		pm_uninstall();
	memset(&pm_g, 0, sizeof pm_g);
	pm_g.pending_fd = -1;
	for (int i = 0; i < PM_SPARE_FDS; i++)
		pm_g.spare_fds[i] = -1;
	if (!configure(cfg))
		return fail(errno);
	if (pm_reports_dir_prepare(pm_g.reports_dir) != 0 || !pm_as_fds_open())
		return fail(errno);
	pm_arch_tls_remember();
	pm_facts_gather(&pm_g.facts, cfg);
	if (!map_region())
		return fail(ENOMEM);
	pm_as_mem_setup();
	pm_g.symbols = pm_as_symbols_create(SYMBOL_BYTES);
	pm_g.freeze_signal = pick_control_signal();
	if (pm_g.freeze_signal < 0)
		return fail(EBUSY);
	if (!pm_altstack_init() || !install_handlers())
		return fail(errno ? errno : EINVAL);
	pm_g.installed = true;
	pm_altstack_ensure();
	pm_altstack_broadcast(pm_g.freeze_signal, SETUP_WAIT_MS);
	return 0;
}

void
pm_uninstall(void)
{
	if (!pm_g.installed)
		return;
	pm_watchdog_stop();
	pm_live_teardown();
	restore_handlers();
	pm_altstack_release();
	release_storage();
	memset(&pm_g, 0, sizeof pm_g);
}

const char *
pm_reports_dir(void)
{
	return pm_g.reports_dir;
}
