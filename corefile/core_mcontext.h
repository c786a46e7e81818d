/*
 * core_mcontext.h — a core's thread as this machine's mcontext_t, the form
 * the capture engine takes registers in (NOT AS-safe).
 */
#ifndef PM_COREFILE_CORE_MCONTEXT_H
#define PM_COREFILE_CORE_MCONTEXT_H

#include <sys/ucontext.h>

#include "core.h"

/* t's registers into *out (the rest zero: no FP state pointer, no
 * extension records); false when the core is of another architecture. */
bool pmi_core_thread_mcontext(const pm_core *c, const pm_core_thread *t, mcontext_t *out);

#endif
