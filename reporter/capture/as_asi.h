/*
 * as_asi.h — AS-SAFE: the Application Specific Information lines of a crash.
 */
#ifndef PM_REPORTER_AS_ASI_H
#define PM_REPORTER_AS_ASI_H

#include <stddef.h>
#include <sys/types.h>

#include "state.h"

/* Fill r->exception.asi from what the process said before dying (the app's
 * crash message, the uncaught C++ exception thread tid died of, glibc's
 * assert/abort message, read through mem), through `scratch`. */
void as_fill_asi(pm_report *r, const pm_facts *f, pid_t tid, const pm_mem *mem, char *scratch, size_t scratch_cap);

/* One more line (text[0..len), cut at newlines) after as_fill_asi's, while there is room. */
void as_asi_add(pm_report *r, const char *text, size_t len);

#endif
