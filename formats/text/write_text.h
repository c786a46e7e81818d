/*
 * write_text.h — the AS-SAFE .crash text writer (write_text.c), and the
 * pieces its files share.
 */
#ifndef PM_FORMATS_WRITE_TEXT_H
#define PM_FORMATS_WRITE_TEXT_H

#include "model.h"

/* Apple-style .crash text of a report.  AS-safe with an fd or buffer sink; the
 * crash path, the store and upload call it, tools call pm_write_report_* instead. */
pm_err pmi_write_text(const pm_report *r, pm_out *o);
/* Frame lines "%-4u%-30s\t0x%016llx location" for n frames. */
void pmi_write_frames(const pm_report *r, const pm_frame *frames, uint32_t n, pm_out *o);
/* "Thread N crashed with … Thread State" block of the crashed thread, if it has registers. */
void pmi_write_thread_state(const pm_report *r, pm_out *o);

#endif
