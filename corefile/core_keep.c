/*
 * core_keep.c — what a core stream keeps of the segments going by, chosen
 * from the notes before they come: the crashed thread's stack above its
 * stack pointer and the bytes around each of its registers that points
 * into the core, the vDSO, the first page of each mapped file (its ELF
 * header and build id), then every other thread's stack.  Everything is
 * bounded: a stack by stack_bytes, the whole by keep_bytes (later threads
 * share what is left).  Only bytes the stream has yet to bring are kept.
 * NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <stddef.h>
#include <stdlib.h>

enum { VDSO_MAX = 64 << 10, HEAD_PAGE = 4096 };

typedef struct picker {
	pm_core *c;
	uint64_t from;            /* the stream's offset: earlier bytes are gone */
	size_t budget;            /* bytes left to keep */
	pm_core_kept *k;
	size_t n, cap;
} picker;

/* Keep [addr - below, addr + above) as far as the segment holding addr has
 * it in the core; a stack pointer that overflowed lies just below its
 * stack, whose bytes from its start are kept then. */
static bool
want(picker *p, uint64_t addr, uint64_t below, uint64_t above, bool stack)
{
	pm_core *c = p->c;
	size_t i = pmi_core_find(c->segs, c->nsegs, sizeof *c->segs, offsetof(pm_core_segment, vaddr), addr);
	if (i == c->nsegs || addr - c->segs[i].vaddr >= c->segs[i].filesz) {
		size_t up = i == c->nsegs ? 0 : i + 1;
		if (!stack || up >= c->nsegs || c->segs[up].vaddr - addr > PM_CORE_OVERFLOW_REACH)
			return true;
		i = up;
		above -= c->segs[up].vaddr - addr < above ? c->segs[up].vaddr - addr : above;
		addr = c->segs[up].vaddr;
	}
	const pm_core_segment *s = &c->segs[i];
	uint64_t lo = addr - s->vaddr > below ? addr - below : s->vaddr;
	uint64_t hi = s->vaddr + s->filesz - addr > above ? addr + above : s->vaddr + s->filesz;
	uint64_t off = s->offset + (lo - s->vaddr);
	if (off < p->from) { /* passed already */
		if (s->offset + (hi - s->vaddr) <= p->from)
			return true;
		lo += p->from - off;
		off = p->from;
	}
	if (hi - lo > p->budget)
		hi = lo + p->budget;
	if (hi == lo)
		return true;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		pm_core_kept *k = realloc(p->k, cap * sizeof *k);
		if (!k)
			return false;
		p->k = k;
		p->cap = cap;
	}
	p->k[p->n++] = (pm_core_kept){ .vaddr = lo, .offset = off, .len = (size_t)(hi - lo) };
	p->budget -= (size_t)(hi - lo);
	return true;
}

static int
by_vaddr(const void *a, const void *b)
{
	const pm_core_kept *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Sort and merge overlapping or touching ranges of the same segment. */
static void
merge(picker *p)
{
	if (p->n)
		qsort(p->k, p->n, sizeof *p->k, by_vaddr);
	size_t out = 0;
	for (size_t i = 0; i < p->n; i++) {
		pm_core_kept *last = out ? &p->k[out - 1] : NULL;
		pm_core_kept *k = &p->k[i];
		if (last && k->vaddr <= last->vaddr + last->len && k->offset - last->offset == k->vaddr - last->vaddr) {
			uint64_t end = k->vaddr + k->len > last->vaddr + last->len ? k->vaddr + k->len : last->vaddr + last->len;
			last->len = (size_t)(end - last->vaddr);
			continue;
		}
		p->k[out++] = *k;
	}
	p->n = out;
}

static uint64_t
auxv_value(const pm_core *c, uint64_t type)
{
	for (size_t i = 0; i < c->auxv_pairs; i++)
		if (c->auxv[2 * i] == type)
			return c->auxv[2 * i + 1];
	return 0;
}

static bool
pick_all(picker *p, const pm_core_stream_limits *lim)
{
	pm_core *c = p->c;
	const pm_core_thread *t = &c->threads[0];
	if (!want(p, t->sp, PM_CORE_REDZONE, lim->stack_bytes, true))
		return false;
	size_t nregs = c->arch == PM_CORE_ARCH_X86_64 ? PM_CORE_X86_64_NGREG : 31;
	const uint64_t *regs = c->arch == PM_CORE_ARCH_X86_64 ? t->mc.x86_64.gregs : t->mc.aarch64.regs;
	for (size_t r = 0; r < nregs; r++)
		if (!want(p, regs[r], PM_CORE_AROUND_REG, PM_CORE_AROUND_REG, false))
			return false;
	uint64_t vdso = auxv_value(c, AT_SYSINFO_EHDR);
	if (vdso && !want(p, vdso, 0, VDSO_MAX, false))
		return false;
	for (size_t m = 0; m < c->nmaps; m++)
		if (c->maps[m].offset == 0 && !want(p, c->maps[m].start, 0, HEAD_PAGE, false))
			return false;
	for (size_t i = 1; i < c->nthreads; i++) {
		size_t share = p->budget / (c->nthreads - i);
		if (!want(p, c->threads[i].sp, PM_CORE_REDZONE, share < lim->stack_bytes ? share : lim->stack_bytes, true))
			return false;
	}
	return true;
}

pm_err
pmi_core_pick(pm_core *c, const pm_core_stream_limits *lim, uint64_t from, char *why, size_t cap)
{
	picker p = { .c = c, .from = from, .budget = lim->keep_bytes };
	if (!pick_all(&p, lim)) {
		free(p.k);
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for the ranges to keep");
	}
	merge(&p);
	for (size_t i = 0; i < p.n; i++)
		if (!(p.k[i].data = malloc(p.k[i].len))) {
			for (size_t j = 0; j < i; j++)
				free(p.k[j].data);
			free(p.k);
			return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for %zu bytes to keep", p.k[i].len);
		}
	c->src->kept = p.k;
	c->src->nkept = p.n;
	return PM_OK;
}
