/*
 * test_unwind_libunwind.c — the crash unwinder against libunwind's local
 * unwinder on the same signal context (issue 4; built only with
 * -Dlibunwind=enabled, twice: -O2 -fomit-frame-pointer, and -O2
 * -fno-omit-frame-pointer as unwind_libunwind_fp).
 *
 * A thread stopped deep in a qsort comparator (bench/stop_in_qsort.h: the
 * stack crosses libc in raise and in qsort) is walked in its signal handler
 * by as_unwind, through the page-cached reader and the image table as at
 * a crash, and by libunwind from unw_init_local2(UNW_INIT_SIGNAL_FRAME).
 * Both must list the same pcs in the same order down to the thread's start,
 * clone3.  The walks start at the interrupted context, so the signal
 * trampoline (between the handler and that context) is not on the walked
 * stack: there is no signal frame where the two could legitimately differ.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <string.h>

#include "bench/lu_walk.h"
#include "bench/stop_in_qsort.h"
#include "reporter/symbols/as_symbols.h"

enum { DEPTH = 20, MAX_FRAMES = 512, SYMBOL_BYTES = 32 << 20 };

static pm_as_symbols symbols;
static pm_frame pm_frames[MAX_FRAMES];
static uint32_t pm_count;
static const char *pm_stop;
static uint64_t lu_pcs[MAX_FRAMES];
static uint32_t lu_count;
static int lu_end;

/* Name postmortem's frames as the crash handler does, through a one-thread
 * report that borrows them: libc's clone3 is only in libc6-dbg's .symtab. */
static void
name_frames(const stop_site *site)
{
	for (uint32_t i = 0; i < pm_count; i++) {
		const pm_as_image *im = as_image_for(site->env.images, pm_frame_lookup_address(&pm_frames[i], i));
		pm_frames[i].image = im ? (int32_t)im->model_index : -1;
	}
	pm_thread t = { .frames = pm_frames, .frame_count = pm_count };
	site->report->threads = &t;
	site->report->thread_count = 1;
	as_symbolize(&symbols, site->report, site->env.images, &site->env.mem);
	site->report->threads = NULL;
	site->report->thread_count = 0;
}

static void
walk_both(const stop_site *site, void *arg)
{
	(void)arg;
	pm_mem self = as_mem_self();
	as_mem_self_begin();
	as_mem_cache_reset(site->cache, &self);
	pm_count = as_unwind(&site->env, &site->cpu, pm_frames, MAX_FRAMES, &pm_stop);
	lu_count = lu_walk(site->uc, lu_pcs, MAX_FRAMES, &lu_end);
	name_frames(site);
}

static void
dump_stacks(void)
{
	for (uint32_t i = 0; i < pm_count || i < lu_count; i++)
		cr_log_info("%3u  postmortem %#18llx %-28s  libunwind %#18llx", i,
		            i < pm_count ? (unsigned long long)pm_frames[i].address : 0ull,
		            i < pm_count && pm_frames[i].symbol ? pm_frames[i].symbol : "",
		            i < lu_count ? (unsigned long long)lu_pcs[i] : 0ull);
}

Test(unwind_libunwind, same_frames_down_to_the_thread_start)
{
	symbols = pmi_as_symbols_create(SYMBOL_BYTES);
	cr_assert_not_null(symbols.work);
	cr_assert_eq(stop_in_qsort(DEPTH, walk_both, NULL), 0, "could not stop a thread in qsort");
	pmi_as_symbols_destroy(&symbols);

	cr_expect_null(pm_stop, "postmortem's walk stopped early: %s", pm_stop ? pm_stop : "");
	cr_expect_eq(lu_end, 0, "libunwind's walk stopped early: %s", lu_end_text(lu_end));
	/* Below the descent: sort_and_raise, qsort's frames, the comparator and raise's. */
	cr_expect_gt(lu_count, DEPTH + 4, "libunwind found only %u frames", lu_count);
	bool same = pm_count == lu_count;
	cr_expect_eq(pm_count, lu_count, "postmortem found %u frames, libunwind %u", pm_count, lu_count);
	for (uint32_t i = 0; i < pm_count && i < lu_count; i++) {
		same &= pm_frames[i].address == lu_pcs[i];
		cr_expect_eq(pm_frames[i].address, lu_pcs[i], "frame %u: postmortem %#llx, libunwind %#llx", i,
		             (unsigned long long)pm_frames[i].address, (unsigned long long)lu_pcs[i]);
	}
	/* Where glibc's clone3 starts a thread: itself on x86_64, a local thread_start on arm64. */
#if defined(__aarch64__)
	const char *want = "thread_start";
#else
	const char *want = "clone3";
#endif
	const char *outermost = pm_count ? pm_frames[pm_count - 1].symbol : NULL;
	cr_expect(outermost && strcmp(outermost, want) == 0, "the walks end at %s, not at %s",
	          outermost ? outermost : "an unnamed frame", want);
	if (!same)
		dump_stacks();
}
