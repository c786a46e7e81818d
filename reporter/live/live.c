/*
 * live.c — backtraces and reports of a process that goes on.  NOT AS-safe:
 * runs in ordinary threads, but through the crash handler's own pieces (freeze,
 * capture, unwinder, symbols, writers), so a live report reads exactly like a
 * crash report.
 *
 *   pm_backtrace_thread()   one thread: a sample request on the control
 *                           signal, the thread hands over its registers
 *                           and waits while its stack is walked
 *   pmi_live_report()        every thread: claim the report like a crash,
 *                           freeze, capture, describe, write, release
 *   pm_snapshot_write()     pmi_live_report for a snapshot
 */
#include "live.h"
#include "model.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "as_capture.h"
#include "as_handler.h"
#include "as_images.h"
#include "as_landing.h"
#include "as_memory.h"
#include "as_symbols.h"
#include "as_unwind.h"

enum { SAMPLE_WAIT_MS = 1000, LIVE_IMAGES = 4096, LIVE_MAPS = 65536, LIVE_LINES = 64 * 1024,
       LIVE_SYMBOL_BYTES = 16 * 1024 * 1024 };

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

/* What pm_backtrace_thread keeps between calls: the frames' strings live here. */
static struct {
	pm_report report;
	pm_as_images images;
	pm_as_symbols symbols;
	pm_mem_cache *cache;
	char *lines;
	bool ready;
} bt;

static bool
bt_prepare(void)
{
	if (!bt.ready) {
		bt.images.images = calloc(LIVE_IMAGES, sizeof *bt.images.images);
		bt.images.maps = calloc(LIVE_MAPS, sizeof *bt.images.maps);
		bt.lines = malloc(LIVE_LINES);
		bt.cache = malloc(sizeof *bt.cache);
		bt.symbols = pmi_as_symbols_create(LIVE_SYMBOL_BYTES);
		if (!bt.images.images || !bt.images.maps || !bt.lines || !bt.cache) {
			pmi_live_teardown();
			return false;
		}
		pm_report_init(&bt.report);
		bt.ready = true;
	}
	pm_report_free(&bt.report);
	pm_report_init(&bt.report);
	bt.report.images = calloc(LIVE_IMAGES, sizeof *bt.report.images);
	bt.images.cap = bt.report.images ? LIVE_IMAGES : 0;
	bt.images.map_cap = LIVE_MAPS;
	return bt.report.images != NULL;
}

void
pmi_live_teardown(void)
{
	pthread_mutex_lock(&live_lock);
	if (bt.ready)
		free(bt.report.images);
	pm_report_free(&bt.report);
	free(bt.images.images);
	free(bt.images.maps);
	free(bt.lines);
	free(bt.cache);
	pmi_as_symbols_destroy(&bt.symbols);
	memset(&bt, 0, sizeof bt);
	pthread_mutex_unlock(&live_lock);
}

/* Ask thread tid for its registers; true when it handed them over (it then
 * waits in its handler until as_g.sample.state leaves SAMPLE_TAKEN). */
static bool
sample_thread(int tid, mcontext_t *mc)
{
	pm_sample *s = &as_g.sample;
	__atomic_store_n(&s->tid, tid, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, SAMPLE_ASKED, __ATOMIC_RELEASE);
	siginfo_t info;
	pmi_control_info(&info, as_g.freeze_signal, PM_CONTROL_SAMPLE);
	long rc = pmi_control_send(info.si_pid, tid, &info);
	if (rc < 0) {
		__atomic_store_n(&s->state, SAMPLE_IDLE, __ATOMIC_RELEASE);
		errno = (int)-rc;
		return false;
	}
	uint64_t deadline = as_sys_now_ns() + (uint64_t)SAMPLE_WAIT_MS * 1000000u;
	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SAMPLE_ASKED) {
		uint64_t now = as_sys_now_ns();
		if (now >= deadline) {
			int asked = SAMPLE_ASKED;
			if (__atomic_compare_exchange_n(&s->state, &asked, SAMPLE_IDLE, false, __ATOMIC_ACQ_REL,
			                                __ATOMIC_ACQUIRE)) {
				errno = ETIMEDOUT;
				return false;
			}
			break; /* it answered just now */
		}
		as_sys_futex_wait(&s->state, SAMPLE_ASKED, deadline - now);
	}
	*mc = s->mc;
	return true;
}

static void
sample_done(void)
{
	__atomic_store_n(&as_g.sample.state, SAMPLE_DONE, __ATOMIC_RELEASE);
	as_sys_futex_wake(&as_g.sample.state);
}

/* Walk from mc with this moment's image table; names from the symbol tables. */
static size_t
walk(const mcontext_t *mc, pm_frame *frames, size_t max)
{
	as_target self = as_target_self();
	as_mem_self_begin();
	as_mem_cache_reset(bt.cache, &self.mem);
	/* Every read through the cache, the images' first pages too. */
	self.mem = as_mem_cached(bt.cache);
	as_images_scan(&bt.images, &bt.report, &self, as_g.facts.exe_path, bt.lines, LIVE_LINES);
	pm_unwind_env env = { .mem = self.mem, .images = &bt.images };
	pm_cpu cpu;
	const char *stop;
	as_arch_cpu_from_mcontext(mc, &cpu);
	uint32_t n = as_unwind(&env, &cpu, frames, (uint32_t)(max < UINT32_MAX ? max : UINT32_MAX), &stop);
	for (uint32_t i = 0; i < n; i++) {
		const pm_as_image *im = as_image_for(&bt.images, pm_frame_lookup_address(&frames[i], i));
		frames[i].image = im ? (int32_t)im->model_index : -1;
	}
	/* Name the frames through a one-thread report that borrows them. */
	pm_thread t = { .frames = frames, .frame_count = n };
	bt.report.threads = &t;
	bt.report.thread_count = 1;
	as_symbolize(&bt.symbols, &bt.report, &bt.images, &self.mem);
	bt.report.threads = NULL;
	bt.report.thread_count = 0;
	return n;
}

int
pm_backtrace_thread(int tid, pm_frame *frames, size_t max)
{
	if (!as_g.installed || !frames || max == 0) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&live_lock);
	int result = -1;
	ucontext_t uc;
	mcontext_t mc;
	bool own = tid == as_sys_gettid();
	if (!bt_prepare()) {
		errno = ENOMEM;
	} else if (own) {
		getcontext(&uc);
		result = (int)walk(&uc.uc_mcontext, frames, max);
	} else if (sample_thread(tid, &mc)) {
		result = (int)walk(&mc, frames, max);
		sample_done();
	}
	pthread_mutex_unlock(&live_lock);
	return result;
}

int32_t
pmi_live_thread_index(const pm_report *r, int tid)
{
	for (uint32_t i = 0; i < r->thread_count; i++)
		if (r->threads[i].id == (uint64_t)tid)
			return (int32_t)i;
	return -1;
}

/* Claim the report as a crash would; EBUSY while a crash is reported. */
static bool
claim(pid_t self)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&as_g.owner, &none, self))
		return true;
	errno = EBUSY;
	return false;
}

/* Threads go on; a crash that waited for us may now report itself. */
static void
unclaim(void)
{
	as_reset_slots();
	atomic_store(&as_g.owner, 0);
	as_release();
}

static void
copy_paths(const as_capture_ctx *c, pm_live_files *files)
{
	as_strlcpy(files->crash_path, c->crash_path, sizeof files->crash_path);
	as_strlcpy(files->json_path, c->json_path, sizeof files->json_path);
	as_strlcpy(files->minidump_path, c->minidump_path, sizeof files->minidump_path);
	files->generation = *c->generation;
}

int
pmi_live_report(pm_kind kind, pm_live_fill_fn *fill, void *ctx, pm_live_files *files)
{
	if (!as_g.installed) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&live_lock);
	pid_t self = as_sys_gettid();
	if (!claim(self)) {
		pthread_mutex_unlock(&live_lock);
		return -1;
	}
	ucontext_t uc;
	struct timespec now;
	getcontext(&uc);
	clock_gettime(CLOCK_REALTIME, &now);
	as_capture_ctx c = as_capture_ctx_of(&as_g, self, &uc.uc_mcontext, 0, NULL, &now);
	as_capture(&c);
	/* A hang or a snapshot is read with what the app said before it, as a crash is. */
	as_fill_context(c.report, c.facts->tz_min, c.scratch, c.scratch_cap);
	c.report->kind = (uint8_t)kind;
	fill(c.report, ctx);
	as_capture_symbols(&c);
	bool ok = as_write_report(&c);
	as_write_minidump(&c);
	copy_paths(&c, files);
	unclaim();
	pthread_mutex_unlock(&live_lock);
	if (!ok)
		errno = EIO;
	return ok ? 0 : -1;
}

int
pmi_live_rewrite(const pm_live_files *files, pm_live_fill_fn *fill, void *ctx)
{
	pthread_mutex_lock(&live_lock);
	int result = -1;
	if (!as_g.installed) {
		errno = EINVAL;
	} else if (claim(as_sys_gettid())) {
		if (as_g.capture_generation != files->generation) {
			errno = ESTALE;
		} else {
			as_capture_ctx c = as_capture_ctx_of(&as_g, as_sys_gettid(), NULL, 0, NULL, NULL);
			fill(c.report, ctx);
			c.report->complete = false;
			result = as_write_report(&c) ? 0 : -1;
			if (result != 0)
				errno = EIO;
		}
		atomic_store(&as_g.owner, 0);
	}
	pthread_mutex_unlock(&live_lock);
	return result;
}

/* ---- snapshots ------------------------------------------------------------ */

static void
fill_snapshot(pm_report *r, void *ctx)
{
	const char *reason = ctx;
	pm_exception *e = &r->exception;
	e->note = "SIMULATED (this is NOT a crash)";
	e->asi = pmi_arena_alloc(r->arena, sizeof *e->asi, _Alignof(const char *));
	if (e->asi) {
		e->asi[0] = pmi_arena_strdup(r->arena, reason && *reason ? reason : "snapshot requested");
		e->asi_count = e->asi[0] ? 1 : 0;
	}
}

int
pm_snapshot_write(const char *reason)
{
	pm_live_files files;
	return pmi_live_report(PM_KIND_SNAPSHOT, fill_snapshot, (void *)reason, &files);
}
