/*
 * core_report.c — the engine's side of core_report.h.  The capture engine
 * cannot yet run over another process's memory (the memory-source seam of
 * issue 31); until it can, no report is written, and the handler says so.
 * NOT AS-safe.
 */
#include "core_report.h"

#include <stdio.h>

pm_err
pmi_core_report(const pm_core_target *t, int pending_fd, char *why, size_t cap)
{
	(void)pending_fd;
	snprintf(why, cap, "not yet: the capture engine cannot read another process (%zu threads in the core)",
	         t->core ? t->core->nthreads : (size_t)0);
	return PM_E_UNSUPPORTED;
}
