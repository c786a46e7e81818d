/*
 * as_mem.c — AS-SAFE fault-free reads of our own memory.
 *
 * process_vm_readv on our own pid copies through the kernel, which returns an
 * error instead of raising SIGSEGV for an unmapped or unreadable address.
 * Where a sandbox denies it (seccomp filters, old kernels), the fallback is
 * the pipe probe: write(2) from the address into a pipe fails with EFAULT
 * when the memory is bad, and read(2) brings the bytes back.  The pipe is
 * opened at install (mem_setup.c); the choice is made at each capture (a
 * sandbox set up after install may deny process_vm_readv by then).
 */
#include "as_mem.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as_sys.h"
#include "start_data.h"

static int pipe_fds[2] = { -1, -1 };
PM_START_DATA static bool use_pipe;
static int fallback_fds[2] = { -1, -1 };
/* Our pid, cached by as_mem_cache_reset at the start of a capture so a
 * read costs one system call; 0 means "ask getpid()" (a forked child must
 * read its own memory). */
PM_START_DATA static pid_t cached_pid;

static bool
read_vm(uint64_t src, void *dst, size_t n)
{
	pid_t pid = cached_pid ? cached_pid : getpid();
	return as_sys_process_vm_readv(pid, dst, (uintptr_t)src, n) == (long)n;
}

static bool
read_pipe(uint64_t src, void *dst, size_t n)
{
	int saved = errno;
	bool ok = true;
	char *d = dst;
	while (ok && n > 0) {
		size_t k = n < 4096 ? n : 4096; /* at most PIPE_BUF: one atomic write */
		ok = write(pipe_fds[1], (const void *)(uintptr_t)src, k) == (ssize_t)k &&
		     read(pipe_fds[0], d, k) == (ssize_t)k;
		src += k;
		d += k;
		n -= k;
	}
	errno = saved;
	return ok;
}

bool
as_mem_read(void *dst, uint64_t src, size_t n)
{
	if (n == 0)
		return true;
	if (src + n < src)
		return false;
	return use_pipe ? read_pipe(src, dst, n) : read_vm(src, dst, n);
}

static bool
self_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	(void)ctx;
	return as_mem_read(dst, addr, n);
}

pm_mem
as_mem_self(void)
{
	return (pm_mem){ .read = self_read, .ctx = NULL };
}

/* Both ends of one pipe: the app may have closed ours and reused the
 * numbers, and memory must never be written into one of its files. */
static bool
is_one_pipe(int read_fd, int write_fd)
{
	struct stat r, w;
	return read_fd >= 0 && write_fd >= 0 && fstat(read_fd, &r) == 0 && fstat(write_fd, &w) == 0 &&
	       S_ISFIFO(r.st_mode) && r.st_dev == w.st_dev && r.st_ino == w.st_ino;
}

void
as_mem_cache_reset(pm_mem_cache *c)
{
	cached_pid = getpid();
	if (!use_pipe && !as_mem_probe() && is_one_pipe(fallback_fds[0], fallback_fds[1]))
		as_mem_use_pipe(fallback_fds[0], fallback_fds[1]);
	for (size_t i = 0; i < PM_MEM_CACHE_PAGES; i++)
		c->tag[i] = 0;
	c->next = 0;
}

/* The cached copy of the page at `page`, read in whole on a miss; NULL
 * when the page cannot be read.  Set-associative: a page may only live in
 * the PM_MEM_CACHE_WAYS slots of its set, so a lookup checks a few tags. */
static const unsigned char *
cached_page(pm_mem_cache *c, uint64_t page)
{
	size_t sets = PM_MEM_CACHE_PAGES / PM_MEM_CACHE_WAYS;
	size_t first = (size_t)(page / PM_MEM_PAGE % sets) * PM_MEM_CACHE_WAYS;
	for (size_t i = first; i < first + PM_MEM_CACHE_WAYS; i++)
		if (c->tag[i] == page + 1)
			return c->page[i];
	size_t slot = first + c->next++ % PM_MEM_CACHE_WAYS;
	c->tag[slot] = 0;
	if (!as_mem_read(c->page[slot], page, PM_MEM_PAGE))
		return NULL;
	c->tag[slot] = page + 1;
	return c->page[slot];
}

static bool
cached_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	pm_mem_cache *c = ctx;
	unsigned char *d = dst;
	if (n == 0)
		return true;
	if (addr + n < addr)
		return false;
	while (n > 0) {
		uint64_t page = addr & ~(uint64_t)(PM_MEM_PAGE - 1);
		size_t off = (size_t)(addr - page), k = PM_MEM_PAGE - off;
		if (k > n)
			k = n;
		const unsigned char *p = cached_page(c, page);
		if (!p)
			return false;
		memcpy(d, p + off, k);
		d += k;
		addr += k;
		n -= k;
	}
	return true;
}

pm_mem
as_mem_cached(pm_mem_cache *c)
{
	return (pm_mem){ .read = cached_read, .ctx = c };
}

void
as_mem_use_pipe(int read_fd, int write_fd)
{
	pipe_fds[0] = read_fd;
	pipe_fds[1] = write_fd;
	use_pipe = read_fd >= 0 && write_fd >= 0;
}

void
as_mem_fallback_pipe(int read_fd, int write_fd)
{
	fallback_fds[0] = read_fd;
	fallback_fds[1] = write_fd;
}

bool
as_mem_probe(void)
{
	static const uint64_t probe = 0x706d5f70726f6265u;
	uint64_t got = 0;
	return as_mem_read(&got, (uintptr_t)&probe, sizeof got) && got == probe;
}
