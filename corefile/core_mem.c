/*
 * core_mem.c — memory of the process a core is of, read through the core:
 * its own bytes (core_own.c), then the live process (/proc/<pid>/mem while
 * the kernel holds it), then the files it mapped (core_files.c).  A read
 * is served piece by piece, each piece from the first source that has its
 * first byte; it succeeds only whole.  NOT AS-safe.
 */
#include "core_internal.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

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

static size_t
any_piece(pm_core *c, uint64_t addr, void *dst, size_t n)
{
	size_t k = pmi_core_own_piece(c, addr, dst, n);
	if (!k)
		k = from_process(c->src, addr, dst, n);
	return k ? k : pmi_core_file_read(c, addr, dst, n);
}

bool
pmi_core_mem_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	return pmi_core_read_whole(ctx, any_piece, addr, dst, n);
}
