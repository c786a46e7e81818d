/*
 * as_mem.h — AS-SAFE reads of memory that may be bad.
 *
 * Every read of the target's memory (stacks, ELF headers, unwind tables,
 * what the minidump keeps) goes through a pm_mem source, so a corrupt
 * pointer yields "cannot read" instead of a second fault.  The live one
 * reads our own process (as_mem_self); a capture reads its target's
 * (as_target.h) through a cache and stack windows; tests and fuzzers plug
 * in byte buffers.
 */
#ifndef PM_REPORTER_AS_MEM_H
#define PM_REPORTER_AS_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_mem_window;

typedef struct pm_mem {
	/* Copy n bytes at addr into dst; true only if all n bytes arrived. */
	bool (*read)(void *ctx, uint64_t addr, void *dst, size_t n);
	void *ctx;
	/* Optional: several stack windows at once (as_mem_windows_read says
	 * what of each), cheaper than a read each; NULL: a read each, whole or
	 * nothing. */
	void (*read_windows)(void *ctx, struct pm_mem_window *w, size_t n);
} pm_mem;

/* Open the pipe fallback (each capture probes process_vm_readv and uses the
 * pipe where it is denied).  NOT AS-safe: call at install (mem_setup.c).
 * Returns false if the pipe cannot be had. */
bool pmi_as_mem_setup(void);
/* Close the pipe fallback if one was opened.  NOT AS-safe. */
void pmi_as_mem_teardown(void);
/* Read through this pipe from now on (-1, -1: through process_vm_readv).  AS-safe. */
void as_mem_use_pipe(int read_fd, int write_fd);
/* The pipe to switch to when process_vm_readv stops working (-1, -1: none).  AS-safe. */
void as_mem_fallback_pipe(int read_fd, int write_fd);
/* True when the current method reads a known value back.  AS-safe. */
bool as_mem_probe(void);
/* Before a capture of our own process: remember our pid for the reads, and
 * switch to the fallback pipe if the current method no longer works.  AS-safe. */
void as_mem_self_begin(void);
/* The reader of our own address space.  AS-safe. */
pm_mem as_mem_self(void);
/* Read from our own address space without faulting.  AS-safe. */
bool as_mem_read(void *dst, uint64_t src, size_t n);

/*
 * A cache over a target's reader, for one capture: the unwind tables (and
 * symbol tables) it reads do not change while the other threads are
 * stopped, and most reads of a walk fall in a few places.  Reset it before
 * each capture.
 *
 * Its lines are a quarter page, and a line's bytes are handed out in the
 * order lines are first filled: at the first crash every page of the cache
 * is fresh, and the first write into a fresh page costs several times a
 * read (5 to 40 us here against 2 to 3), so a capture that fills ten lines
 * touches three pages, not ten.
 */
enum { PM_MEM_PAGE = 4096, PM_MEM_LINE = 1024, PM_MEM_CACHE_LINES = 256, PM_MEM_CACHE_WAYS = 4 };

/*
 * Stack windows: the top of each thread's stack, copied for a batch of
 * threads with one system call.  A walk reads mostly the first kilobyte or
 * two above its stack pointer, and the system call's fixed cost, not the
 * bytes, is most of a small read: one process_vm_readv of 16 ranges costs
 * about what 4 reads of one range do.  A walk that climbs past its window
 * moves it up (one read each time), so a deep stack costs about what it
 * did through the cache.  Windows are small because each of their pages is
 * fresh at the first crash (see above): 2 KiB held the 30 frames of every
 * thread of bench/crash_target.c.  Storage is the cache's (after its
 * lines, so that a capture faults in only the windows it uses).
 */
enum { PM_MEM_WINDOW = 2048, PM_MEM_WINDOWS = 16 };

typedef struct pm_mem_cache {
	pm_mem src;                          /* what it caches */
	uint64_t tag[PM_MEM_CACHE_LINES];    /* line address + 1; 0: empty */
	uint16_t bytes[PM_MEM_CACHE_LINES];  /* slot i's bytes are line[bytes[i] - 1]; 0: none yet */
	size_t next;                         /* round-robin victim within a set */
	size_t handed;                       /* lines' bytes handed out since the reset */
	unsigned char line[PM_MEM_CACHE_LINES][PM_MEM_LINE];
	unsigned char window[PM_MEM_WINDOWS][PM_MEM_WINDOW];
} pm_mem_cache;

/* A copy of [start, start + len) of a stack that ends at `end`; reads
 * outside it go to `under`, except that a read above it, below `end`,
 * moves it up there (read from `src`): a walk climbs its stack. */
typedef struct pm_mem_window {
	uint64_t start, end;
	size_t len;               /* bytes held; 0: none */
	unsigned char *bytes;
	const pm_mem *under;
	const pm_mem *src;        /* the target's reader, uncached (as_mem_windows_read sets it) */
} pm_mem_window;

/* Empty the cache, which reads through src from now on.  AS-safe. */
void as_mem_cache_reset(pm_mem_cache *c, const pm_mem *src);
/* True when reads go through the pipe: one pipe, so one reader at a time.  AS-safe. */
bool as_mem_uses_pipe(void);
/* A reader of the cache's source through the cache.  AS-safe. */
pm_mem as_mem_cached(pm_mem_cache *c);

/* Copy the first PM_MEM_WINDOW bytes of [w[i].start, w[i].end) into window
 * i of c for each i < n (n <= PM_MEM_WINDOWS), from the cache's source: our
 * own memory with one system call when every range is readable, a range
 * that cannot be read whole keeping the part read before the bad byte (len
 * short, 0 at worst); a source without read_windows, a read each, whole or
 * nothing.  AS-safe. */
void as_mem_windows_read(pm_mem_cache *c, pm_mem_window *w, size_t n);
/* A reader that serves reads inside w from its copy, the others from
 * w->under.  AS-safe. */
pm_mem as_mem_windowed(pm_mem_window *w);

/* Typed helpers over any source.  AS-safe. */
static inline bool
pm_mem_read(const pm_mem *m, uint64_t addr, void *dst, size_t n)
{
	return m->read(m->ctx, addr, dst, n);
}

static inline bool
pm_mem_u64(const pm_mem *m, uint64_t addr, uint64_t *out)
{
	return m->read(m->ctx, addr, out, sizeof *out);
}

#endif
