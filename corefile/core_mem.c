/*
 * core_mem.c — memory of the process a core is of, read through the core:
 * its own bytes (a file's segments, a stream's kept ranges), then the live
 * process (/proc/<pid>/mem while the kernel holds it), then the files it
 * mapped.  A read is served piece by piece, each piece from the first
 * source that has its first byte; it succeeds only whole.  NOT AS-safe.
 */
#include "core_internal.h"

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

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

static size_t
from_process(const pm_core_src *s, uint64_t addr, void *dst, size_t n)
{
	if (s->mem_fd < 0 || addr > (uint64_t)INT64_MAX - n)
		return 0;
	ssize_t k;
	do
		k = pread(s->mem_fd, dst, n, (off_t)addr);
	while (k < 0 && errno == EINTR);
	return k > 0 ? (size_t)k : 0;
}

/* Through the core alone, or (`all`) the process and the files too. */
static bool
read_from(pm_core *c, bool all, uint64_t addr, void *dst, size_t n)
{
	unsigned char *out = dst;
	if (addr + n < addr)
		return false;
	while (n) {
		size_t k = from_kept(c->src, addr, out, n);
		if (!k)
			k = from_segments(c, addr, out, n);
		if (!k && all)
			k = from_process(c->src, addr, out, n);
		if (!k && all)
			k = pmi_core_file_read(c, addr, out, n);
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
	return read_from(c, false, addr, dst, n);
}

bool
pmi_core_mem_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	return read_from(ctx, true, addr, dst, n);
}
