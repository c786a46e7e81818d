/*
 * as_mem.c — AS-SAFE fault-free reads of our own memory, and the cache and
 * stack windows a capture reads its target through.
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
#include <sys/uio.h>
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

static void self_windows(void *ctx, pm_mem_window *w, size_t n);

pm_mem
as_mem_self(void)
{
	return (pm_mem){ .read = self_read, .ctx = NULL, .read_windows = self_windows };
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
as_mem_self_begin(void)
{
	cached_pid = getpid();
	if (!use_pipe && !as_mem_probe() && is_one_pipe(fallback_fds[0], fallback_fds[1]))
		as_mem_use_pipe(fallback_fds[0], fallback_fds[1]);
}

void
as_mem_cache_reset(pm_mem_cache *c, const pm_mem *src)
{
	c->src = *src;
	for (size_t i = 0; i < PM_MEM_CACHE_LINES; i++) {
		c->tag[i] = 0;
		c->bytes[i] = 0;
	}
	c->next = 0;
	c->handed = 0;
}

/* The cached copy of the line at `line`, read in whole on a miss; NULL
 * when the line cannot be read.  Set-associative: a line may only live in
 * the PM_MEM_CACHE_WAYS slots of its set, so a lookup checks a few tags. */
static const unsigned char *
cached_line(pm_mem_cache *c, uint64_t line)
{
	size_t sets = PM_MEM_CACHE_LINES / PM_MEM_CACHE_WAYS;
	size_t first = (size_t)(line / PM_MEM_LINE % sets) * PM_MEM_CACHE_WAYS;
	for (size_t i = first; i < first + PM_MEM_CACHE_WAYS; i++)
		if (c->tag[i] == line + 1)
			return c->line[c->bytes[i] - 1];
	size_t slot = first + c->next++ % PM_MEM_CACHE_WAYS;
	if (c->bytes[slot] == 0) /* each slot takes bytes once: handed never passes the lines */
		c->bytes[slot] = (uint16_t)++c->handed;
	unsigned char *bytes = c->line[c->bytes[slot] - 1];
	c->tag[slot] = 0;
	if (!pm_mem_read(&c->src, line, bytes, PM_MEM_LINE))
		return NULL;
	c->tag[slot] = line + 1;
	return bytes;
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
		uint64_t line = addr & ~(uint64_t)(PM_MEM_LINE - 1);
		size_t off = (size_t)(addr - line), k = PM_MEM_LINE - off;
		if (k > n)
			k = n;
		const unsigned char *p = cached_line(c, line);
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

/* The kernel stops at the first range it cannot read whole and returns the
 * bytes before the bad one: keep those, and go on from the next range. */
static void
read_vm_windows(pm_mem_window *w, size_t n)
{
	struct iovec local[PM_MEM_WINDOWS], remote[PM_MEM_WINDOWS];
	pid_t pid = cached_pid ? cached_pid : getpid();
	size_t i = 0;
	while (i < n) { /* each round settles at least range i */
		size_t k = 0;
		for (size_t j = i; j < n; j++, k++) {
			local[k] = (struct iovec){ .iov_base = (void *)(uintptr_t)w[j].bytes, .iov_len = w[j].len };
			remote[k] = (struct iovec){ .iov_base = (void *)(uintptr_t)w[j].start, .iov_len = w[j].len };
		}
		long got = as_sys_process_vm_readv_iov(pid, local, remote, k);
		size_t left = got > 0 ? (size_t)got : 0;
		for (; i < n && left >= w[i].len; i++)
			left -= w[i].len;
		if (i < n)
			w[i++].len = left;
	}
}

/* A window each, whole or none: the pipe's way, and any source's without
 * a batch of its own. */
static void
read_each(const pm_mem *src, pm_mem_window *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!pm_mem_read(src, w[i].start, w[i].bytes, w[i].len))
			w[i].len = 0;
}

static void
self_windows(void *ctx, pm_mem_window *w, size_t n)
{
	(void)ctx;
	if (use_pipe) {
		pm_mem self = as_mem_self();
		read_each(&self, w, n);
	} else {
		read_vm_windows(w, n);
	}
}

void
as_mem_windows_read(pm_mem_cache *c, pm_mem_window *w, size_t n)
{
	if (n > PM_MEM_WINDOWS)
		n = PM_MEM_WINDOWS;
	for (size_t i = 0; i < n; i++) {
		w[i].bytes = c->window[i];
		w[i].src = &c->src;
		w[i].len = w[i].end <= w[i].start ? 0 : w[i].end - w[i].start < PM_MEM_WINDOW ? w[i].end - w[i].start
		                                                                               : PM_MEM_WINDOW;
	}
	if (c->src.read_windows)
		c->src.read_windows(c->src.ctx, w, n);
	else
		read_each(&c->src, w, n);
}

/* Below the read that moves a window, what it keeps: the slots a frame
 * saves lie below its return address, and are not always read first. */
enum { WINDOW_SLACK = 512 };

static bool
in_window(const pm_mem_window *w, uint64_t addr, size_t n)
{
	return addr >= w->start && n <= w->len && addr - w->start <= w->len - n;
}

static bool
windowed_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	pm_mem_window *w = ctx;
	if (!in_window(w, addr, n) && w->len > 0 && addr >= w->start + w->len && addr < w->end) {
		uint64_t start = addr - w->start > WINDOW_SLACK ? addr - WINDOW_SLACK : w->start;
		size_t len = w->end - start < PM_MEM_WINDOW ? (size_t)(w->end - start) : PM_MEM_WINDOW;
		w->len = 0; /* until the copy is whole */
		if (pm_mem_read(w->src, start, w->bytes, len)) {
			w->start = start;
			w->len = len;
		}
	}
	if (in_window(w, addr, n)) {
		memcpy(dst, w->bytes + (addr - w->start), n);
		return true;
	}
	return pm_mem_read(w->under, addr, dst, n);
}

pm_mem
as_mem_windowed(pm_mem_window *w)
{
	return (pm_mem){ .read = windowed_read, .ctx = w };
}

void
as_mem_use_pipe(int read_fd, int write_fd)
{
	pipe_fds[0] = read_fd;
	pipe_fds[1] = write_fd;
	use_pipe = read_fd >= 0 && write_fd >= 0;
}

bool
as_mem_uses_pipe(void)
{
	return use_pipe;
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
