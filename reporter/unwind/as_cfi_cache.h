/*
 * as_cfi_cache.h — AS-SAFE cache of CFI rows by pc for one capture.
 *
 * Threads parked in the same calls share most return addresses: 256 threads
 * waiting in the same few libc functions would otherwise find each FDE and
 * run its instructions again for every thread.  The cache keeps, per pc (and
 * .eh_frame_hdr), what the lookup found: the FDE's CIE and the row of rules
 * at that pc, or that there was none.  Applying a row to a thread's registers
 * is per thread and is never cached.
 *
 * Fixed size, direct-mapped: a collision only recomputes.  Reserved at install
 * (untouched until a crash); emptied at the start of every capture, because
 * the images (and their .eh_frame) may have changed in between.
 */
#ifndef PM_REPORTER_AS_CFI_CACHE_H
#define PM_REPORTER_AS_CFI_CACHE_H

#include <stddef.h>

#include "as_cfi.h"

typedef struct pm_cfi_cache pm_cfi_cache;

/* Bytes a cache takes; zeroed memory of that size is an empty cache. */
size_t as_cfi_cache_size(void);
/* Forget every entry (O(1)): at the start of a capture. */
void as_cfi_cache_clear(pm_cfi_cache *c);
/* Fault in the index and the first `rows` rows in one call: a second
 * walker does it while the images are scanned, not in its first walks. */
void as_cfi_cache_populate(pm_cfi_cache *c, size_t rows);

/* as_cfi_step, through the cache (NULL: no cache). */
pm_cfi_result as_cfi_step_cached(pm_cfi_cache *c, const pm_mem *mem, uint64_t eh_frame_hdr, pm_cpu *cpu);

#endif
