/*
 * test_minidump_memory.c — the bytes of the minidump's memory ranges
 * (reporter/minidump/as_minidump_memory.c, as_md_memory_bytes) read from
 * this process, the live target: a range is read a chunk at a time, and a page that cannot be
 * read comes out as zeros while the pages around it keep their bytes, with
 * process_vm_readv and with the pipe fallback.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/model/out.h"
#include "reporter/memory/as_mem.h"
#include "reporter/minidump/as_minidump_memory.h"
#include "reporter/capture/state.h"
#include "util.h"

enum { PAGES = 20, BAD_PAGE = 9, CHUNK_PAGES = 8, START_OFFSET = 100 };

static size_t page;
static unsigned char *mem;

static void
map_pages(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	cr_assert_eq(page, PM_MEM_PAGE, "the reader's page is %d bytes, this machine's %zu", PM_MEM_PAGE, page);
	mem = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(mem, MAP_FAILED);
	for (size_t i = 0; i < PAGES * page; i++)
		mem[i] = (unsigned char)(i * 7 + i / page + 1);
	cr_assert_eq(mprotect(mem + BAD_PAGE * page, page, PROT_NONE), 0);
}

/* The bytes as_md_memory_bytes writes for [mem + START_OFFSET, mem + PAGES pages),
 * through a chunk smaller than the range. */
static void
check_range_bytes(void)
{
	size_t len = PAGES * page - START_OFFSET;
	char *chunk = malloc(CHUNK_PAGES * page), *out = malloc(len + 1);
	cr_assert(chunk && out);
	pm_out o;
	pmi_out_init_buf(&o, out, len + 1);
	pm_late_facts late = { 0 };
	pm_facts facts = { .late = &late };
	as_target self = as_target_self();
	pm_md_range range = { .start = (uint64_t)(uintptr_t)mem + START_OFFSET,
	                      .end = (uint64_t)(uintptr_t)mem + PAGES * page };
	pm_md_writer w = { .o = &o, .ranges = &range, .range_count = 1, .range_cap = 1,
	                   .chunk = chunk, .chunk_cap = CHUNK_PAGES * page, .facts = &facts,
	                   .target = &self };
	as_md_memory_bytes(&w);
	cr_assert_eq(o.total, len, "%zu bytes written for a range of %zu", (size_t)o.total, len);
	for (size_t i = 0; i < len; i++) {
		size_t at = START_OFFSET + i;
		unsigned char want = at / page == BAD_PAGE ? 0 : mem[at];
		cr_assert_eq((unsigned char)out[i], want, "byte %zu (page %zu): %u, expected %u", at, at / page,
		             (unsigned char)out[i], want);
	}
	free(chunk);
	free(out);
}

Test(minidump_memory, an_unreadable_page_is_zeros_and_the_rest_is_kept)
{
	map_pages();
	check_range_bytes();
}

Test(minidump_memory, the_pipe_fallback_gives_the_same_bytes)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	as_mem_use_pipe(fds[0], fds[1]);
	map_pages();
	check_range_bytes();
}
