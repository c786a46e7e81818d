/*
 * core_own.c — the bytes a core holds of its process's memory: a stream's
 * kept ranges, then a file's segments.  The files it mapped and the live
 * process come above (core_mem.c); this is all a file's reader may trust
 * of the core itself (core_files.c: a mapping's first page).  NOT AS-safe.
 */
#include "core_internal.h"

#include <stddef.h>

size_t
pmi_core_find(const void *base, size_t n, size_t stride, size_t field, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;
		memcpy(&v, (const char *)base + mid * stride + field, sizeof v);
		if (v <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

static size_t
from_kept(const pm_core_src *s, uint64_t addr, void *dst, size_t n)
{
	size_t i = pmi_core_find(s->kept, s->nkept, sizeof *s->kept, offsetof(pm_core_kept, vaddr), addr);
	if (i == s->nkept || addr - s->kept[i].vaddr >= s->kept[i].got)
		return 0;
	size_t at = (size_t)(addr - s->kept[i].vaddr), k = s->kept[i].got - at < n ? s->kept[i].got - at : n;
	memcpy(dst, s->kept[i].data + at, k);
	return k;
}

static size_t
from_segments(const pm_core *c, uint64_t addr, void *dst, size_t n)
{
	const pm_core_src *s = c->src;
	if (!s->pread)
		return 0;
	size_t i = pmi_core_find(c->segs, c->nsegs, sizeof *c->segs, offsetof(pm_core_segment, vaddr), addr);
	if (i == c->nsegs || addr - c->segs[i].vaddr >= c->segs[i].filesz)
		return 0;
	uint64_t at = addr - c->segs[i].vaddr, left = c->segs[i].filesz - at;
	long k = s->pread(s->pread_ctx, dst, left < n ? (size_t)left : n, c->segs[i].offset + at);
	return k > 0 ? (size_t)k : 0;
}

size_t
pmi_core_own_piece(pm_core *c, uint64_t addr, void *dst, size_t n)
{
	size_t k = from_kept(c->src, addr, dst, n);
	return k ? k : from_segments(c, addr, dst, n);
}

bool
pmi_core_read_whole(pm_core *c, pmi_core_piece_fn *piece, uint64_t addr, void *dst, size_t n)
{
	unsigned char *out = dst;
	if (addr + n < addr)
		return false;
	while (n) {
		size_t k = piece(c, addr, out, n);
		if (!k)
			return false;
		addr += k;
		out += k;
		n -= k;
	}
	return true;
}

bool
pmi_core_own_read(pm_core *c, uint64_t addr, void *dst, size_t n)
{
	return pmi_core_read_whole(c, pmi_core_own_piece, addr, dst, n);
}
