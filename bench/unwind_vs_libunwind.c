/*
 * unwind_vs_libunwind.c — postmortem's crash unwinder against libunwind's
 * local unwinder, on one signal context (issue 4; built only with
 * -Dlibunwind=enabled).  A thread stopped DEPTH frames down in a qsort
 * comparator (stop_in_qsort.h) is walked, in its signal handler, ROUNDS
 * times by each walker, all interleaved so that the machine's noise hits
 * each alike:
 *
 *   postmortem  as_unwind through the page-cached fault-free reader and
 *               the image table, as the crash handler calls it
 *   libunwind   unw_init_local2(UNW_INIT_SIGNAL_FRAME), then unw_step and
 *               unw_get_reg(UNW_REG_IP) to the outermost frame, with its
 *               global per-address cache
 *   libunwind, no cache   the same with UNW_CACHE_NONE: every frame's row
 *               found and interpreted afresh, as postmortem does
 *
 * each once "cold" (postmortem's page cache or libunwind's cache emptied: a
 * crash's walk, or a process's first) and once right after, "warm".  argv[1]
 * names the build flavour for the table.
 *
 * Prints frames found by each, how each walk ended, the fraction of
 * libunwind's frames postmortem reproduces (same pc at the same depth, and
 * as a longest common subsequence), ns per frame (min and median over the
 * rounds) and, where the stacks differ, both stacks side by side.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lu_walk.h"
#include "stop_in_qsort.h"
#include "timing.h"

enum { DEPTH = 30, ROUNDS = 2000, MAX_FRAMES = 512 };
enum { PM, LU, LU_BARE, WALKERS };
enum { COLD, WARM };

static const char *const walker_name[WALKERS] = { "postmortem", "libunwind", "libunwind, no cache" };
static pm_frame frames[MAX_FRAMES];
static double ns[WALKERS][2][ROUNDS];

static struct walk {
	uint64_t pc[MAX_FRAMES];
	uint32_t count;
	const char *end;  /* how it ended */
} got[WALKERS];

static double
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void
walk_pm(const stop_site *site, int when, int round)
{
	double t0 = now_ns();
	/* Emptying the page cache is part of a crash's walk. */
	if (when == COLD) {
		pm_mem self = as_mem_self();
		as_mem_self_begin();
		as_mem_cache_reset(site->cache, &self);
	}
	got[PM].count = as_unwind(&site->env, &site->cpu, frames, MAX_FRAMES, &got[PM].end);
	ns[PM][when][round] = now_ns() - t0;
}

static void
walk_lu(const stop_site *site, int who, int when, int round)
{
	int end;
	double t0 = now_ns();
	got[who].count = lu_walk(site->uc, got[who].pc, MAX_FRAMES, &end);
	ns[who][when][round] = now_ns() - t0;
	got[who].end = lu_end_text(end);
}

static void
walk_all(const stop_site *site, void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		walk_pm(site, COLD, i);
		walk_pm(site, WARM, i);
		/* Outside the clocks: a process's first walk has nothing to flush. */
		lu_caching(true);
		lu_forget();
		walk_lu(site, LU, COLD, i);
		walk_lu(site, LU, WARM, i);
		lu_caching(false);
		walk_lu(site, LU_BARE, COLD, i);
		walk_lu(site, LU_BARE, WARM, i);
	}
	for (uint32_t i = 0; i < got[PM].count; i++)
		got[PM].pc[i] = frames[i].address;
}

/* Min and median of a run's walks, per frame. */
static void
per_frame(double *walks, uint32_t frame_count, double *min, double *median)
{
	timing_sort(walks, ROUNDS);
	*min = walks[0] / frame_count;
	*median = (walks[ROUNDS / 2 - 1] + walks[ROUNDS / 2]) / 2 / frame_count;
}

static uint32_t
same_depth(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
	uint32_t same = 0;
	for (uint32_t i = 0; i < na && i < nb; i++)
		same += a[i] == b[i];
	return same;
}

/* Length of the longest common subsequence, one row of the table at a time. */
static uint32_t
common_subsequence(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
	static uint32_t rows[2][MAX_FRAMES + 1];
	memset(rows, 0, sizeof rows);
	for (uint32_t i = 1; i <= na; i++) {
		uint32_t *prev = rows[(i - 1) & 1], *cur = rows[i & 1];
		for (uint32_t j = 1; j <= nb; j++)
			cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : cur[j - 1] > prev[j] ? cur[j - 1] : prev[j];
	}
	return rows[na & 1][nb];
}

/* "libc.so.6+0x2a3f0 (qsort_r)" — dladdr is enough here: this is not the crash path. */
static const char *
describe(uint64_t pc, char *buf, size_t cap)
{
	Dl_info info;
	if (!dladdr((void *)(uintptr_t)pc, &info) || !info.dli_fname) {
		snprintf(buf, cap, "?");
		return buf;
	}
	const char *slash = strrchr(info.dli_fname, '/');
	snprintf(buf, cap, "%s+%#llx%s%s%s", slash ? slash + 1 : info.dli_fname,
	         (unsigned long long)(pc - (uintptr_t)info.dli_fbase), info.dli_sname ? " (" : "",
	         info.dli_sname ? info.dli_sname : "", info.dli_sname ? ")" : "");
	return buf;
}

static void
print_stacks(const struct walk *pm, const struct walk *lu)
{
	char a[128], b[128];
	uint32_t n = pm->count > lu->count ? pm->count : lu->count;
	printf("\n%5s  %-50s  %s\n", "depth", "postmortem", "libunwind");
	for (uint32_t i = 0; i < n; i++)
		printf("%5u%c %-50s  %s\n", i, i < pm->count && i < lu->count && pm->pc[i] == lu->pc[i] ? ' ' : '*',
		       i < pm->count ? describe(pm->pc[i], a, sizeof a) : "",
		       i < lu->count ? describe(lu->pc[i], b, sizeof b) : "");
}

static void
print_times(int when, const char *min_label)
{
	double min[WALKERS], median[WALKERS];
	for (int w = 0; w < WALKERS; w++)
		per_frame(ns[w][when], got[w].count, &min[w], &median[w]);
	printf("%-26s %20.0f %20.0f %20.0f\n", min_label, min[PM], min[LU], min[LU_BARE]);
	printf("%-26s %20.0f %20.0f %20.0f\n", "  median", median[PM], median[LU], median[LU_BARE]);
}

int
main(int argc, char **argv)
{
	if (stop_in_qsort(DEPTH, walk_all, NULL) != 0)
		return 2;
	bool pm_complete = got[PM].end == NULL;
	if (pm_complete)
		got[PM].end = "outermost frame";
	for (int w = 0; w < WALKERS; w++)
		if (got[w].count == 0)
			return 2;
	const struct walk *pm = &got[PM], *lu = &got[LU];
	uint32_t depth = same_depth(pm->pc, pm->count, lu->pc, lu->count);
	uint32_t lcs = common_subsequence(pm->pc, pm->count, lu->pc, lu->count);
	printf("\n%s: one thread stopped %d frames down in a qsort comparator, %d walks each\n\n",
	       argc > 1 ? argv[1] : "(flavour not given)", DEPTH, ROUNDS);
	printf("%-26s %20s %20s %20s\n", "", walker_name[PM], walker_name[LU], walker_name[LU_BARE]);
	printf("%-26s %20u %20u %20u\n", "frames", pm->count, lu->count, got[LU_BARE].count);
	printf("%-26s %20s %20s %20s\n", "walk ended at", pm->end, lu->end, got[LU_BARE].end);
	print_times(COLD, "ns/frame, cold: min");
	print_times(WARM, "ns/frame, warm: min");
	printf("libunwind's frames postmortem reproduces: same pc at the same depth %u/%u (%.1f%%), "
	       "as a common subsequence %u/%u (%.1f%%); postmortem's frames libunwind lacks: %u\n",
	       depth, lu->count, 100.0 * depth / lu->count, lcs, lu->count, 100.0 * lcs / lu->count, pm->count - lcs);
	if (depth != lu->count || pm->count != lu->count)
		print_stacks(pm, lu);
	return pm_complete ? 0 : 1;
}
