/*
 * as_minidump_memory.c — AS-SAFE: the memory a minidump keeps.  Each
 * thread's stack from the page of its sp up (capped), and around the
 * crashed thread's pc, its registers that look like pointers, and the
 * faulting address.  Each range is clipped to its readable mapping, then
 * overlapping ones are merged (Breakpad rejects a MemoryList whose ranges
 * overlap), and the bytes stream from the target's memory: a page that
 * cannot be read is written as zeros, so the planned sizes hold.
 */
#include <string.h>
#include <sys/mman.h>

#include "as_memory.h"
#include "as_minidump_memory.h"
#include "model.h"

/* [lo, hi) clipped to the readable mapping holding lo; false if none. */
static bool
clip_to_map(const pm_md_writer *w, uint64_t lo, uint64_t hi, uint64_t *start, uint64_t *end)
{
	const pm_as_map *m = as_map_for(w->images, lo);
	if (!m || !(m->prot & PROT_READ) || hi <= lo)
		return false;
	*start = lo;
	*end = hi < m->end ? hi : m->end;
	return *end > *start;
}

static bool
stack_range(const pm_md_writer *w, uint64_t sp, uint64_t *start, uint64_t *end)
{
	uint64_t lo = sp & ~(uint64_t)(PM_MEM_PAGE - 1);
	return clip_to_map(w, lo, lo + PM_MD_STACK_CAP, start, end);
}

static void
add(pm_md_writer *w, uint64_t start, uint64_t end)
{
	if (w->range_count < w->range_cap)
		w->ranges[w->range_count++] = (pm_md_range){ .start = start, .end = end };
}

static void
add_around(pm_md_writer *w, uint64_t addr)
{
	uint64_t s, e;
	if (addr < PM_MD_MIN_POINTER || addr > UINT64_MAX - PM_MD_AROUND_SIZE)
		return;
	uint64_t lo = addr - PM_MD_AROUND_BEFORE;
	/* The part before addr may lie in another mapping, or none: start at addr then. */
	if (clip_to_map(w, lo, lo + PM_MD_AROUND_SIZE, &s, &e) || clip_to_map(w, addr, lo + PM_MD_AROUND_SIZE, &s, &e))
		add(w, s, e);
}

static void
add_crashed(pm_md_writer *w, const pm_thread *t)
{
	const pm_exception *x = &w->r->exception;
	if (x->has_address)
		add_around(w, x->address);
	for (uint32_t i = 0; t->regs && i < t->regs->count && i < PM_MAX_REGS; i++)
		add_around(w, t->regs->reg[i].value);
}

/* Insertion sort by start, then fold overlapping and touching ranges. */
static void
sort_and_merge(pm_md_writer *w)
{
	pm_md_range *a = w->ranges;
	for (size_t i = 1; i < w->range_count; i++) {
		pm_md_range v = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1].start > v.start; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
	size_t n = 0;
	for (size_t i = 0; i < w->range_count; i++) {
		if (n > 0 && a[i].start <= a[n - 1].end) {
			if (a[i].end > a[n - 1].end)
				a[n - 1].end = a[i].end;
			continue;
		}
		a[n++] = a[i];
	}
	w->range_count = n;
}

void
as_md_memory_plan(pm_md_writer *w)
{
	w->range_count = 0;
	int32_t crashed = pm_report_crashed_thread(w->r);
	for (uint32_t i = 0; i < w->r->thread_count; i++) {
		const pm_thread *t = &w->r->threads[i];
		uint64_t s, e;
		if (as_md_thread_context(w, t) && stack_range(w, as_md_context_sp(w), &s, &e))
			add(w, s, e);
	}
	if (crashed >= 0)
		add_crashed(w, &w->r->threads[crashed]);
	sort_and_merge(w);
	uint32_t rva = as_md_rva(w);
	for (size_t i = 0; i < w->range_count; i++) {
		w->ranges[i].rva = rva;
		rva += (uint32_t)(w->ranges[i].end - w->ranges[i].start);
	}
}

/* The initial environment's strings sit at the top of the main thread's
 * stack, inside the 32 KiB a shallow crash keeps: blank them unless the
 * environment was asked for. */
static void
blank_environ(const pm_md_writer *w, char *buf, uint64_t at, size_t n)
{
	const pm_facts *f = w->facts;
	if (w->environ || f->late->environ_end <= f->late->environ_start)
		return;
	uint64_t lo = at > f->late->environ_start ? at : f->late->environ_start;
	uint64_t hi = at + n < f->late->environ_end ? at + n : f->late->environ_end;
	for (uint64_t a = lo; a < hi; a++)
		buf[a - at] = 0;
}

/* n bytes at `at` (n <= chunk_cap) in one read; when that fails, page by
 * page, so that one bad page costs only itself. */
static void
put_span(pm_md_writer *w, uint64_t at, size_t n)
{
	const pm_mem *mem = &w->target->mem;
	if (!pm_mem_read(mem, at, w->chunk, n)) {
		for (size_t off = 0; off < n;) {
			uint64_t a = at + off, next = (a & ~(uint64_t)(PM_MEM_PAGE - 1)) + PM_MEM_PAGE;
			size_t k = next - a < n - off ? (size_t)(next - a) : n - off;
			if (!pm_mem_read(mem, a, w->chunk + off, k))
				memset(w->chunk + off, 0, k);
			off += k;
		}
	}
	blank_environ(w, w->chunk, at, n);
	pmi_out_put(w->o, w->chunk, n);
}

void
as_md_memory_bytes(pm_md_writer *w)
{
	for (size_t i = 0; i < w->range_count; i++) {
		uint64_t at = w->ranges[i].start, end = w->ranges[i].end;
		while (at < end) {
			/* Spans after the first start on a page: the pipe fallback
			 * (as_mem.c) then reads whole pages, each all or nothing. */
			uint64_t in_page = at & (PM_MEM_PAGE - 1);
			size_t room = in_page ? (size_t)(PM_MEM_PAGE - in_page) : w->chunk_cap;
			size_t n = end - at < room ? (size_t)(end - at) : room;
			put_span(w, at, n);
			at += n;
		}
	}
}

void
as_md_memory_list(pm_md_writer *w)
{
	uint8_t b[PM_MD_MEMORY_DESC_SIZE];
	as_md_stream_begin(w, PM_MD_MEMORY_LIST);
	pm_md_put32(b, (uint32_t)w->range_count);
	pmi_out_put(w->o, (const char *)b, 4);
	for (size_t i = 0; i < w->range_count; i++) {
		pm_md_put64(b, w->ranges[i].start);
		as_md_put_location(b + 8, (uint32_t)(w->ranges[i].end - w->ranges[i].start), w->ranges[i].rva);
		pmi_out_put(w->o, (const char *)b, sizeof b);
	}
	as_md_stream_end(w);
}

void
as_md_stack_descriptor(const pm_md_writer *w, uint64_t sp, uint8_t out[PM_MD_MEMORY_DESC_SIZE])
{
	uint64_t s, e;
	pm_md_put64(out, sp);
	as_md_put_location(out + 8, 0, 0);
	if (!stack_range(w, sp, &s, &e))
		return;
	for (size_t i = 0; i < w->range_count; i++) {
		const pm_md_range *g = &w->ranges[i];
		if (s >= g->start && e <= g->end) {
			pm_md_put64(out, s);
			as_md_put_location(out + 8, (uint32_t)(e - s), g->rva + (uint32_t)(s - g->start));
			return;
		}
	}
}
