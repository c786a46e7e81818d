/*
 * model.h — the door of formats/model: the report model as the libraries
 * use it inside, and what every format builds on: the arena a report lives
 * in (arena.h), the output sink the writers render into (out.h), images'
 * debug ids (debug_id.h), a growing array (grow.h) and the readers' input
 * checks (read_util.h).
 *
 * Declared here: model helpers no caller of the public API needs: a report
 * over a fixed block (the crash path's), the comparison the round-trip tests
 * and fuzzers check readers against, and where a frame is looked up (capture
 * and symbolication must agree on it).
 */
#ifndef PM_FORMATS_MODEL_H
#define PM_FORMATS_MODEL_H

#include "arena.h"
#include "debug_id.h"
#include "grow.h"
#include "out.h"
#include "read_util.h"

/* Empty report whose arena is the caller's fixed block (the arena's own
 * bookkeeping is carved from its start).  AS-safe. */
void pmi_report_init_fixed(pm_report *r, void *mem, size_t size);
/* Empty report over arena a (NULL: none, every allocation fails).  AS-safe. */
void pmi_report_reset(pm_report *r, pm_arena *a);
/* True when two reports hold the same facts; on difference *where names the first. */
bool pmi_report_equal(const pm_report *a, const pm_report *b, const char **where);

/* The address to look a frame up at (image, symbol): frame 0 and frames
 * restored from a signal context hold exact pcs; the others hold return
 * addresses, which point after the call, possibly past the end of a
 * noreturn caller.  AS-safe. */
static inline uint64_t
pm_frame_lookup_address(const pm_frame *f, uint32_t index)
{
	return index == 0 || f->how == PM_HOW_CONTEXT ? f->address : f->address - 1;
}

#endif
