/*
 * write_text.h — pieces of the AS-SAFE .crash text writer shared between its files.
 */
#ifndef PM_FORMATS_WRITE_TEXT_H
#define PM_FORMATS_WRITE_TEXT_H

#include "out.h"

/* Frame lines "%-4u%-30s\t0x%016llx location" for n frames. */
void pmi_write_frames(const pm_report *r, const pm_frame *frames, uint32_t n, pm_out *o);
/* "Thread N crashed with … Thread State" block of the crashed thread, if it has registers. */
void pmi_write_thread_state(const pm_report *r, pm_out *o);

#endif
