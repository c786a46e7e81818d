/*
 * as_prefault.h — AS-SAFE: the fresh pages a capture is about to write,
 * made resident with one MADV_POPULATE_WRITE call per region (as_sys_populate)
 * instead of a page fault each.
 *
 * At the first capture every page pm_install reserved is fresh (the
 * capture state of state.h among them, which the handler populates itself
 * after its claim), and so is the handler's alternate stack below the
 * signal frame.  On the paravirtualized guest docs/benchmarks.md measures
 * on, a fault costs about 13 us, a populated page about 1 us in the call
 * plus 3-6 us at its first touch, a call about 1.5 us.  Each region is
 * sized to what the capture will use (measured with perf on the crash
 * benchmark at 1, 17, 257 and 1025 threads), so that a one-thread crash
 * populates only pages it writes.  Where the kernel refuses (before Linux
 * 5.14, qemu-user) nothing changes: the pages fault one by one.
 */
#ifndef PM_REPORTER_AS_PREFAULT_H
#define PM_REPORTER_AS_PREFAULT_H

#include <signal.h>
#include <stddef.h>

#include "as_capture_ctx.h"

/* At the handler's entry: its alternate stack below sp, as deep as the
 * capture's calls go (nothing when sp is not on that stack, `alt`), and
 * what the freeze's listing writes (the thread list, the first page of the
 * scratch buffer the directory is read into). */
void as_prefault_entry(const as_capture_ctx *c, const void *sp, const stack_t *alt);
/* Once the threads are listed: the report's arena, the image tables,
 * the frame buffer, the memory and CFI caches, sized for `threads`. */
void as_prefault_capture(const as_capture_ctx *c, size_t threads);

#endif
