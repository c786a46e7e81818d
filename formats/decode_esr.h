/*
 * decode_esr.h — the arm64 exception syndrome (ESR) in Apple's words.  AS-SAFE.
 */
#ifndef PM_FORMATS_DECODE_ESR_H
#define PM_FORMATS_DECODE_ESR_H

#include <stdint.h>

/* "(Data Abort) byte read Translation fault", "(Breakpoint) brk 1", …: the
 * description Apple prints after an esr value (format reference §13.8);
 * NULL for an exception class without one.  Static strings. */
const char *pmi_decode_esr(uint32_t esr);

#endif
