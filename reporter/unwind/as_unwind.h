/*
 * as_unwind.h — the door of reporter/unwind: AS-SAFE stack walk of one
 * thread, with the CPU's registers behind it (arch.h) and the capture's
 * cache of CFI rows (as_cfi_cache.h).
 *
 * Per frame the strongest method that works, and the frame says which:
 *   context  frame 0, and frames restored from a kernel signal frame
 *   cfi      DWARF CFI from the image's .eh_frame (as_cfi.h)
 *   fp       a validated frame-pointer step: inside the thread's stack,
 *            aligned, strictly increasing
 *   scan     only for a frame 0 whose pc is not code (a call through a bad
 *            pointer): the return address is taken from the top of the stack
 * The walk ends at the outermost frame, at the frame limit, or with a reason.
 */
#ifndef PM_REPORTER_AS_UNWIND_H
#define PM_REPORTER_AS_UNWIND_H

#include "arch.h"
#include "as_cfi_cache.h"
#include "as_images.h"
#include "as_memory.h"
#include "model.h"

typedef struct pm_unwind_env {
	pm_mem mem;
	const pm_as_images *images;
	struct pm_cfi_cache *cfi_cache; /* rows already found in this capture; NULL: none */
} pm_unwind_env;

/*
 * Walk from `start` (a signal context) writing up to max frames (address and
 * how; image is left for the caller).  Returns the number of frames; *stop
 * is NULL when the walk reached the outermost frame, else why it ended.
 */
uint32_t as_unwind(const pm_unwind_env *env, const pm_cpu *start, pm_frame *out, uint32_t max,
                      const char **stop);

#endif
