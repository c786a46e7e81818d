/*
 * as_cfi_prog.h — AS-SAFE: the call frame instructions of a CIE and an
 * FDE, run up to a pc into a row of rules (as_cfi_prog.c).
 */
#ifndef PM_REPORTER_AS_CFI_PROG_H
#define PM_REPORTER_AS_CFI_PROG_H

#include "as_cfi_entry.h"

/* Call frame instructions (DWARF 5 §6.4.2); the first three carry an operand in their low 6 bits. */
enum {
	DW_CFA_advance_loc = 0x40,
	DW_CFA_offset = 0x80,
	DW_CFA_restore = 0xc0,
	DW_CFA_nop = 0x00,
	DW_CFA_set_loc = 0x01,
	DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03,
	DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05,
	DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07,
	DW_CFA_same_value = 0x08,
	DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a,
	DW_CFA_restore_state = 0x0b,
	DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d,
	DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f,
	DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11,
	DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13,
	DW_CFA_val_offset = 0x14,
	DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16,
	DW_CFA_AARCH64_negate_ra_state = 0x2d,
	DW_CFA_GNU_args_size = 0x2e,
	DW_CFA_GNU_negative_offset_extended = 0x2f,
};

/* How a register (or the CFA) is recovered; the zero value is "no rule". */
typedef enum pm_cfi_how {
	PM_CFI_SAME = 0,                /* keeps this frame's value (callee-saved default) */
	PM_CFI_UNDEF,                   /* unknown; for the return address: outermost frame */
	PM_CFI_OFFSET,                  /* saved at CFA + arg */
	PM_CFI_VAL_OFFSET,              /* is CFA + arg */
	PM_CFI_REG,                     /* is register `reg` (DW_CFA_register); the CFA adds arg */
	PM_CFI_EXPR,                    /* saved at the address the expression yields */
	PM_CFI_VAL_EXPR,                /* is the value the expression yields (def_cfa_expression) */
} pm_cfi_how;

/* 16 bytes: the remember_state stack holds PM_CFI_STATE_DEPTH rows of these. */
typedef struct pm_cfi_rule {
	uint64_t arg;                   /* offset (two's complement) or expression address */
	uint32_t len;                   /* expression length */
	uint8_t how;
	uint8_t reg;
} pm_cfi_rule;

typedef struct pm_cfi_row {
	pm_cfi_rule cfa;
	pm_cfi_rule reg[PM_DWARF_REGS];
} pm_cfi_row;

/* Run the CIE's and the FDE's instructions up to pc into row. */
pm_cfi_result as_cfi_run(const pm_mem *mem, const pm_cfi_fde *fde, uint64_t pc, pm_cfi_row *row);

/* The pc the FDE and the row are looked up at: a return address may be one past
 * a noreturn call at the very end of its function, a signal frame's pc is exact. */
static inline uint64_t
pm_cfi_lookup_pc(const pm_cpu *cpu)
{
	return cpu->signal_frame ? cpu->pc : cpu->pc - 1;
}

#endif
