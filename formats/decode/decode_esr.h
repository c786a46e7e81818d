/*
 * decode_esr.h — the arm64 exception syndrome (ESR) in Apple's words.  AS-SAFE.
 */
#ifndef PM_FORMATS_DECODE_ESR_H
#define PM_FORMATS_DECODE_ESR_H

#include <stdbool.h>
#include <stdint.h>

/* "(Data Abort) byte read Translation fault", "(Breakpoint) brk 1", …: the
 * description Apple prints after an esr value (format reference §13.8);
 * NULL for an exception class without one.  Static strings. */
const char *pmi_decode_esr(uint32_t esr);

/* An ESR's fields as a reader needs them (explain_esr.c words them). */
enum { PM_ESR_OTHER_CLASS, PM_ESR_DATA_ABORT, PM_ESR_INSN_ABORT, PM_ESR_BRK };
/* The fault status of an abort, by kind (bits 5–0 group by kind, then level). */
enum { PM_ESR_ADDRESS, PM_ESR_TRANSLATION, PM_ESR_ACCESS, PM_ESR_PERMISSION, PM_ESR_ALIGNMENT,
       PM_ESR_EXTERNAL, PM_ESR_OTHER_STATUS, PM_ESR_STATUS_KINDS };

typedef struct pm_esr_parts {
	uint8_t ec;      /* exception class, bits 31–26 */
	uint8_t kind;    /* PM_ESR_DATA_ABORT, … */
	uint8_t status;  /* aborts: PM_ESR_TRANSLATION, … */
	uint8_t fsc;     /* aborts: the raw fault status code */
	int8_t level;    /* aborts: the translation table level the status names, else -1 */
	bool write;      /* data aborts: WnR */
	uint16_t imm;    /* brk: its immediate */
} pm_esr_parts;

pm_esr_parts pmi_esr_parts(uint32_t esr);

#endif
