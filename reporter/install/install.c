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
 *   4. handlers: the fatal signals (SA_ONSTACK, the previous ones kept: a
 *      runtime's is given its faults first, as_fatal_action) and a reserved
 *      real-time signal that freezes threads at crash time and sets up
 *      alternate stacks at install;
 *   5. alternate stacks for this thread and every existing one (asked
 *      for, not waited for: see altstack.h).
 */
#include "postmortem-tools.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include "as_capture.h"
#include "as_handler.h"
#include "as_landing.h"
#include "as_memory.h"
#include "as_minidump.h"
#include "as_symbols.h"
#include "as_unwind.h"
#include "go_text.h"
#include "install.h"
#include "live.h"
#include "session.h"

enum {
	DEFAULT_MAX_THREADS = 1024,
	DEFAULT_MAX_FRAMES = 512,
	DEFAULT_FREEZE_MS = 500,
	/* A runtime's handler given a fault first (as_chain.h) may write its own
	 * crash log (the JVM's hs_err file takes well under a second); past this,
	 * it is taken to hang (docs/runtimes.md). */
	DEFAULT_HANDLER_TIMEOUT_MS = 30000,
	REPORT_NAME_ROOM = 64, /* a report file's name: a UUID and an extension */
};

static const int default_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };

static bool
is_default(int sig)
{
	struct sigaction cur;
	return sigaction(sig, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
}

/* A real-time signal nobody handles, from the top down (glibc keeps the
 * lowest ones).  qemu-user keeps two host real-time signals for itself and
 * so cannot deliver the program's top two: tgkill sends them as signal 0. */
static int
pick_control_signal(bool emulated)
{
	for (int sig = SIGRTMAX - (emulated ? 3 : 1); sig > SIGRTMIN + 2; sig--)
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

/* Every piece the handler uses, in one place: run once to measure the
 * region, once to place the pieces in it. */
static bool
lay_out(carver *c)
{
	as_g.cap = carve(c, sizeof(pm_capture_state), 64);
	/* Page-aligned from here as before: the populated ranges start at a page (as_prefault.c). */
	as_g.arena_mem = carve(c, as_g.arena_size, 4096);
	as_g.slots = carve(c, (size_t)as_g.max_threads * 2 * sizeof(pm_slot), 64);
	as_g.as_images = carve(c, PMI_IMAGE_CAP * sizeof(pm_as_image), 16);
	as_g.model_images = carve(c, PMI_IMAGE_CAP * sizeof(pm_image), 16);
	as_g.as_maps = carve(c, PMI_MAP_CAP * sizeof(pm_as_map), 16);
	as_g.io_buf = carve(c, PMI_IO_CAP, 64);
	as_g.scratch = carve(c, PMI_SCRATCH_CAP, 64);
	as_g.frame_tmp = carve(c, as_g.max_frames * sizeof(pm_frame), 16);
	as_g.tids = carve(c, as_g.max_threads * sizeof(pid_t), 16);
	as_g.mem_cache = carve(c, sizeof(pm_mem_cache), 64);
	as_g.cfi_cache = carve(c, as_cfi_cache_size(), 64);
	as_g.md_ranges = carve(c, as_g.md_range_cap * sizeof(pm_md_range), 16);
	/* Last: it ends the region, where the capture context finds it
	 * (as_capture_ctx_of), so that as_g needs no word for it. */
	void *walk_space = carve(c, as_walk_space_size(as_g.max_threads, as_g.max_frames), 64);
	return as_g.md_ranges != NULL && walk_space != NULL;
}

static bool
map_region(void)
{
	as_g.arena_size = pmi_arena_bytes(as_g.max_threads, as_g.max_frames);
	as_g.md_range_cap = (size_t)as_g.max_threads + PM_MD_EXTRA_RANGES;
	carver measure = { .cap = SIZE_MAX };
	lay_out(&measure);
	as_g.region_size = measure.used;
	void *mem = mmap(NULL, as_g.region_size, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return false;
	as_g.region = mem;
	as_g.image_cap = PMI_IMAGE_CAP;
	as_g.map_cap = PMI_MAP_CAP;
	as_g.io_cap = PMI_IO_CAP;
	as_g.scratch_cap = PMI_SCRATCH_CAP;
	carver c = { .base = mem, .cap = as_g.region_size };
	return lay_out(&c);
}

/* Room for the next path in as_g.paths (PATH_MAX of it): right after the
 * one before it (NULL: the first), so that short paths share a page
 * instead of each starting a PATH_MAX buffer of its own. */
static char *
path_after(const char *before)
{
	return as_g.paths + (before ? (size_t)(before - as_g.paths) + strlen(before) + 1 : 0);
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
		as_g.signals[i] = sigs[i];
	}
	as_g.signal_count = n;
	as_g.max_threads = cfg && cfg->max_threads ? cfg->max_threads : DEFAULT_MAX_THREADS;
	as_g.max_frames = cfg && cfg->max_frames ? cfg->max_frames : DEFAULT_MAX_FRAMES;
	as_g.freeze_timeout_ms = cfg && cfg->freeze_timeout_ms ? cfg->freeze_timeout_ms : DEFAULT_FREEZE_MS;
	const char *handler_ms = getenv("POSTMORTEM_HANDLER_TIMEOUT_MS");
	as_g.handler_timeout_ms = cfg && cfg->handler_timeout_ms ? cfg->handler_timeout_ms
	                          : handler_ms && atoi(handler_ms) > 0 ? (uint32_t)atoi(handler_ms)
	                                                               : DEFAULT_HANDLER_TIMEOUT_MS;
	as_g.on_crash = cfg ? cfg->on_crash : NULL;
	as_g.on_crash_ctx = cfg ? cfg->on_crash_ctx : NULL;
	const char *md = getenv("POSTMORTEM_MINIDUMP");
	as_g.minidump = !(cfg && cfg->no_minidump) && !(md && strcmp(md, "0") == 0);
	const char *env = getenv("POSTMORTEM_MINIDUMP_ENVIRON");
	as_g.minidump_environ = (cfg && cfg->minidump_environ) || (env && strcmp(env, "1") == 0);
	if (as_g.max_threads > (1u << 20) || as_g.max_frames > (1u << 16))
		return false;
	char *reports = path_after(NULL), *pending;
	if (!pmi_config_reports_dir(cfg, reports, PATH_MAX))
		return false;
	as_g.reports_dir = reports;
	as_g.pending_dir = pending = path_after(reports);
	int k = pmi_path_join(pending, PATH_MAX, reports, "/pending");
	/* The handler's full paths (<pending>/<incident id>.<ext>) must fit
	 * whole: refuse here rather than cut them at crash time. */
	if (k <= 0 || (size_t)k + 1 + REPORT_NAME_ROOM >= PATH_MAX) {
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
	sa.sa_sigaction = as_on_control;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(as_g.freeze_signal, &sa, &as_g.previous_freeze) != 0)
		return false;

	/* Each fatal signal's registration mirrors the handler it replaces
	 * (as_fatal_action): read that one first. */
	for (size_t i = 0; i < as_g.signal_count; i++)
		if (sigaction(as_g.signals[i], NULL, &as_g.previous[i]) != 0 ||
		    !as_fatal_action(as_g.signals[i], &as_g.previous[i], &sa) ||
		    sigaction(as_g.signals[i], &sa, NULL) != 0)
			return false;
	return true;
}

static void
restore_handlers(void)
{
	for (size_t i = 0; i < as_g.signal_count; i++)
		sigaction(as_g.signals[i], &as_g.previous[i], NULL);
	if (as_g.freeze_signal > 0) {
		/* pm_install does not wait for its setup requests, and one still
		 * pending would meet the default action, the end of the process:
		 * ignoring a signal discards it wherever it is pending. */
		struct sigaction ignore = { .sa_handler = SIG_IGN };
		sigaction(as_g.freeze_signal, &ignore, NULL);
		sigaction(as_g.freeze_signal, &as_g.previous_freeze, NULL);
	}
}

static void
release_storage(void)
{
	as_fds_close();
	pmi_as_symbols_destroy(&as_g.symbols);
	if (as_g.region)
		munmap(as_g.region, as_g.region_size);
	pmi_as_mem_teardown();
}

/* Undo a failed install; `runs`, the runs file when it is open, is closed. */
static int
fail(int err, int runs)
{
	if (runs >= 0)
		close(runs);
	restore_handlers();
	release_storage();
	memset(&as_g, 0, sizeof as_g);
	errno = err;
	return -1;
}

/* pm_config.no_sessions, or POSTMORTEM_SESSIONS=0 (which `postmortem run` sets
 * for its program: it records the run's session itself). */
static bool
sessions_off(const pm_config *cfg)
{
	const char *v = getenv("POSTMORTEM_SESSIONS");
	return (cfg && cfg->no_sessions) || (v && strcmp(v, "0") == 0);
}

/* The preload library reports this program image already (`postmortem run`),
 * and this is a copy of libpostmortem that a library loaded later brought in
 * (a JNI library, a node addon): a second reporter would write each crash
 * twice, and sit beside the first as a runtime's handler would.  The answer
 * lives in the image's own memory, not in the environment or a pid: an exec
 * (env, nice, a shell's exec, a shim) starts an image whose preload library
 * has not installed yet, whatever environment and pid it keeps; a fork's
 * child keeps its parent's answer along with its parent's handlers. */
static bool
preloaded_here(void)
{
	void *sym = dlsym(RTLD_DEFAULT, PMI_PRELOAD_INSTALLED);
	bool (*installed)(void);
	memcpy(&installed, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
	return installed && installed();
}

int
pm_install(const pm_config *cfg)
{
	if (preloaded_here())
		return 0;
	/* as_g is zero here, as the loader, pm_uninstall or a failed install
	 * left it: clearing it again would only fault its pages in. */
	if (as_g.installed)
		pm_uninstall();
	as_g.pending_fd = -1;
	for (int i = 0; i < PM_SPARE_FDS; i++)
		as_g.spare_fds[i] = -1;
	if (!configure(cfg))
		return fail(errno, -1);
	struct stat pending_st;
	int runs = -1;
	int pending = pmi_reports_dir_prepare(as_g.reports_dir, &pending_st, &runs);
	if (!as_fds_open(pending, &pending_st)) {
		int e = errno;
		if (pending >= 0)
			close(pending);
		return fail(e, runs);
	}
	as_arch_tls_remember();
	pmi_tid_cache_start();
	if (!map_region())
		return fail(ENOMEM, runs);
	as_g.facts.late = &as_g.cap->late_facts;
	pmi_facts_gather(&as_g.facts, cfg, path_after(as_g.pending_dir));
	pmi_as_mem_setup();
	as_g.symbols = pmi_as_symbols_create(PMI_SYMBOL_BYTES);
	as_g.freeze_signal = pick_control_signal(as_g.facts.emulated);
	if (as_g.freeze_signal < 0)
		return fail(EBUSY, runs);
	if (!pmi_altstack_init() || !install_handlers())
		return fail(errno ? errno : EINVAL, runs);
	for (size_t i = 0; i < as_g.signal_count; i++)
		pmi_go_text_note(&as_g.previous[i]);
	as_g.installed = true;
	pmi_session_begin(runs, &as_g.facts, sessions_off(cfg));
	pmi_upload_now_prepare(cfg, as_g.reports_dir);
	pmi_altstack_ensure(true);
	/* A process that never started a thread has none to ask: the listing of
	 * /proc/self/task (4 system calls, about 14 us at a first install) is
	 * skipped.  glibc sets the flag false at the first pthread_create. */
	if (!__libc_single_threaded)
		pmi_altstack_broadcast(as_g.freeze_signal);
	return 0;
}

void
pm_uninstall(void)
{
	if (!as_g.installed)
		return;
	pm_watchdog_stop();
	pmi_live_teardown();
	pmi_altstack_broadcast_wait();
	restore_handlers();
	pmi_altstack_release();
	release_storage();
	pmi_upload_now_release();
	memset(&as_g, 0, sizeof as_g);
}

const char *
pm_reports_dir(void)
{
	return as_g.reports_dir ? as_g.reports_dir : "";
}
