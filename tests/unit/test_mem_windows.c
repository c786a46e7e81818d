/*
 * test_mem_windows.c — the capture's reads of its own memory
 * (reporter/memory/as_mem.c).  The cache (as_mem_cached) gives the bytes of
 * memory across its lines and through evictions.  Stack windows
 * (as_mem_windows_read and as_mem_windowed): ranges read in one batch
 * keep their bytes, a range that meets an unreadable page keeps at most
 * what lies before it, the ranges after it are still read, and a reader
 * over a window serves what it holds from the copy and the rest from the
 * reader under it, except a read higher up its stack, which moves the
 * window there; with process_vm_readv and with the pipe fallback.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reporter/memory/as_mem.h"

enum { PAGES = 8, BAD_PAGE = 3, BEFORE_BAD = 1000 };

static unsigned char *mem;
static pm_mem_cache *cache;

static void
setup(void)
{
	cr_assert_eq((size_t)sysconf(_SC_PAGESIZE), (size_t)PM_MEM_PAGE);
	mem = mmap(NULL, PAGES * PM_MEM_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cache = mmap(NULL, sizeof *cache, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(mem != MAP_FAILED && cache != MAP_FAILED);
	for (size_t i = 0; i < PAGES * PM_MEM_PAGE; i++)
		mem[i] = (unsigned char)(i * 13 + i / PM_MEM_PAGE + 5);
	cr_assert_eq(mprotect(mem + BAD_PAGE * PM_MEM_PAGE, PM_MEM_PAGE, PROT_NONE), 0);
	pm_mem self = as_mem_self();
	as_mem_self_begin();
	as_mem_cache_reset(cache, &self);
}

static uint64_t
at(size_t offset)
{
	return (uint64_t)(uintptr_t)(mem + offset);
}

static void
check_bytes(const pm_mem_window *w, const char *what)
{
	for (size_t i = 0; i < w->len; i++)
		cr_assert_eq(w->bytes[i], *(unsigned char *)(uintptr_t)(w->start + i), "%s: byte %zu differs", what, i);
}

/* Five ranges: whole, running into the bad page, after it, inside it, and
 * one more after that (a second failure must not stop the rest either). */
static void
check_windows(bool may_split)
{
	pm_mem self = as_mem_self();
	uint64_t into_bad = at(BAD_PAGE * PM_MEM_PAGE - BEFORE_BAD), after_bad = at((BAD_PAGE + 1) * PM_MEM_PAGE + 50);
	pm_mem_window w[5] = {
		{ .start = at(100), .end = at(100) + 2 * PM_MEM_WINDOW, .under = &self },
		{ .start = into_bad, .end = into_bad + PM_MEM_WINDOW, .under = &self },
		{ .start = after_bad, .end = after_bad + PM_MEM_WINDOW + 1000, .under = &self },
		{ .start = at(BAD_PAGE * PM_MEM_PAGE + 8), .end = at(BAD_PAGE * PM_MEM_PAGE + 72), .under = &self },
		{ .start = at((BAD_PAGE + 2) * PM_MEM_PAGE + 7), .end = at((BAD_PAGE + 2) * PM_MEM_PAGE + 2007), .under = &self },
	};
	as_mem_windows_read(cache, w, 5);
	cr_assert_eq(w[0].len, PM_MEM_WINDOW, "a window holds at most PM_MEM_WINDOW bytes");
	cr_assert(w[1].len == 0 || (may_split && w[1].len == BEFORE_BAD),
	          "%zu bytes kept of a range with %d readable", w[1].len, BEFORE_BAD);
	cr_assert_eq(w[2].len, PM_MEM_WINDOW, "the range after a bad one was not read");
	cr_assert_eq(w[3].len, 0);
	cr_assert_eq(w[4].len, 2000, "the range after a second bad one was not read");
	check_bytes(&w[0], "whole");
	check_bytes(&w[1], "before the bad page");
	check_bytes(&w[2], "after the bad page");
	check_bytes(&w[4], "after the second bad range");

	/* A change after the read: the window still shows the copy, reads past its stack see memory. */
	pm_mem r = as_mem_windowed(&w[2]);
	uint64_t inside = w[2].start + 16, past = w[2].end + 16, v, was;
	memcpy(&was, (void *)(uintptr_t)inside, sizeof was);
	memset((void *)(uintptr_t)inside, 0xab, sizeof v);
	memset((void *)(uintptr_t)past, 0xcd, sizeof v);
	cr_assert(pm_mem_u64(&r, inside, &v));
	cr_assert_eq(v, was, "a read inside the window did not come from its copy");
	cr_assert(pm_mem_u64(&r, past, &v));
	cr_assert_eq(v, UINT64_C(0xcdcdcdcdcdcdcdcd), "a read past the stack did not go to the reader under it");
	cr_assert_eq(w[2].start, after_bad, "a read past the stack moved the window");
	pm_mem bad = as_mem_windowed(&w[3]);
	cr_assert(!pm_mem_u64(&bad, w[3].start, &v), "an unreadable byte was read");

	/* A read above the window, within its stack, moves the copy up there. */
	pm_mem climb = as_mem_windowed(&w[0]);
	uint64_t above = w[0].start + PM_MEM_WINDOW + 100;
	memcpy(&was, (void *)(uintptr_t)above, sizeof was);
	cr_assert(pm_mem_u64(&climb, above, &v));
	cr_assert_eq(v, was);
	cr_assert(w[0].start < above && w[0].start + w[0].len >= above + sizeof v && w[0].start + w[0].len <= w[0].end,
	          "the window did not move up to the read");
	check_bytes(&w[0], "moved up");
	memset((void *)(uintptr_t)above, 0xee, sizeof v);
	cr_assert(pm_mem_u64(&climb, above, &v));
	cr_assert_eq(v, was, "a read in the moved window did not come from its copy");
}

/* Reads of every size and offset over 1 MiB: 16 lines to each set of the
 * cache's, so lines are evicted and their bytes handed to others. */
Test(mem_windows, the_cache_gives_the_bytes_of_memory)
{
	enum { SPAN = 1 << 20, READS = 20000 };
	setup();
	unsigned char *big = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(big != MAP_FAILED);
	for (size_t i = 0; i < SPAN; i++)
		big[i] = (unsigned char)(i * 31 + i / PM_MEM_LINE);
	pm_mem m = as_mem_cached(cache);
	unsigned char got[3 * PM_MEM_LINE];
	uint64_t x = 88172645463325252u;
	for (int i = 0; i < READS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t n = 1 + x % sizeof got, off = (x >> 20) % (SPAN - n);
		cr_assert(pm_mem_read(&m, (uint64_t)(uintptr_t)(big + off), got, n), "read %d failed", i);
		cr_assert(memcmp(got, big + off, n) == 0, "read %d: %zu bytes at %zu differ", i, n, off);
	}
	munmap(big, SPAN);
}

Test(mem_windows, ranges_are_read_around_bad_pages)
{
	setup();
	check_windows(true);
}

Test(mem_windows, the_pipe_fallback_reads_the_same_ranges)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	setup();
	as_mem_use_pipe(fds[0], fds[1]);
	check_windows(false);
}
