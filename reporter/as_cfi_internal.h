/*
 * as_cfi_internal.h — the pieces of the AS-SAFE CFI step (as_cfi*.c):
 * bounded readers over pm_mem, the located FDE, the row of rules, the
 * expression evaluator.  Shared with tests/unit/test_cfi.c for the DWARF
 * constants.
 */
#ifndef PM_REPORTER_AS_CFI_INTERNAL_H
#define PM_REPORTER_AS_CFI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "as_cfi.h"

/* Pointer encodings (LSB, Exception Frames): low nibble the format, high the application. */
enum {
	DW_EH_PE_absptr = 0x00,
	DW_EH_PE_uleb128 = 0x01,
	DW_EH_PE_udata2 = 0x02,
	DW_EH_PE_udata4 = 0x03,
	DW_EH_PE_udata8 = 0x04,
	DW_EH_PE_sleb128 = 0x09,
	DW_EH_PE_sdata2 = 0x0a,
	DW_EH_PE_sdata4 = 0x0b,
	DW_EH_PE_sdata8 = 0x0c,
	DW_EH_PE_pcrel = 0x10,
	DW_EH_PE_textrel = 0x20,
	DW_EH_PE_datarel = 0x30,
	DW_EH_PE_funcrel = 0x40,
	DW_EH_PE_aligned = 0x50,
	DW_EH_PE_indirect = 0x80,
	DW_EH_PE_omit = 0xff,
};

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

/* DWARF expression operations the evaluator knows (DWARF 5 §2.5). */
enum {
	DW_OP_addr = 0x03,
	DW_OP_deref = 0x06,
	DW_OP_const1u = 0x08,
	DW_OP_const1s = 0x09,
	DW_OP_const2u = 0x0a,
	DW_OP_const2s = 0x0b,
	DW_OP_const4u = 0x0c,
	DW_OP_const4s = 0x0d,
	DW_OP_const8u = 0x0e,
	DW_OP_const8s = 0x0f,
	DW_OP_constu = 0x10,
	DW_OP_consts = 0x11,
	DW_OP_dup = 0x12,
	DW_OP_drop = 0x13,
	DW_OP_over = 0x14,
	DW_OP_pick = 0x15,
	DW_OP_swap = 0x16,
	DW_OP_rot = 0x17,
	DW_OP_abs = 0x19,
	DW_OP_and = 0x1a,
	DW_OP_div = 0x1b,
	DW_OP_minus = 0x1c,
	DW_OP_mod = 0x1d,
	DW_OP_mul = 0x1e,
	DW_OP_neg = 0x1f,
	DW_OP_not = 0x20,
	DW_OP_or = 0x21,
	DW_OP_plus = 0x22,
	DW_OP_plus_uconst = 0x23,
	DW_OP_shl = 0x24,
	DW_OP_shr = 0x25,
	DW_OP_shra = 0x26,
	DW_OP_xor = 0x27,
	DW_OP_bra = 0x28,
	DW_OP_eq = 0x29,
	DW_OP_ge = 0x2a,
	DW_OP_gt = 0x2b,
	DW_OP_le = 0x2c,
	DW_OP_lt = 0x2d,
	DW_OP_ne = 0x2e,
	DW_OP_skip = 0x2f,
	DW_OP_lit0 = 0x30,
	DW_OP_lit31 = 0x4f,
	DW_OP_reg0 = 0x50,
	DW_OP_reg31 = 0x6f,
	DW_OP_breg0 = 0x70,
	DW_OP_breg31 = 0x8f,
	DW_OP_regx = 0x90,
	DW_OP_bregx = 0x92,
	DW_OP_deref_size = 0x94,
	DW_OP_nop = 0x96,
};

/* Limits that keep every walk bounded. */
enum {
	PM_CFI_MAX_ENTRY = 1u << 24,    /* a CIE or FDE longer than this is corrupt */
	PM_CFI_MAX_LINEAR = 100000,     /* entries a table-less .eh_frame walk visits */
	PM_CFI_STATE_DEPTH = 16,        /* DW_CFA_remember_state nesting */
	PM_CFI_EXPR_STACK = 64,
	PM_CFI_EXPR_STEPS = 1000,
	PM_CFI_WINDOW = 128,            /* bytes a cursor reads ahead */
};

/*
 * A bounded reader of [pos, end) in some pm_mem.  It reads ahead through a
 * small window, clipped to the page of the bytes asked for so a window never
 * fails where the bytes themselves would not.
 */
typedef struct pm_cfi_cur {
	const pm_mem *mem;
	uint64_t pos, end;
	uint64_t win;                   /* address of buf[0] */
	uint32_t win_len;
	uint8_t buf[PM_CFI_WINDOW];
} pm_cfi_cur;

/* A cursor over [pos, pos + len); false if that range wraps. */
bool as_cfi_cur_init(pm_cfi_cur *c, const pm_mem *mem, uint64_t pos, uint64_t len);
bool as_cfi_bytes(pm_cfi_cur *c, void *dst, uint32_t n);
bool as_cfi_skip(pm_cfi_cur *c, uint64_t n);
bool as_cfi_u8(pm_cfi_cur *c, uint8_t *out);
/* n = 1, 2, 4 or 8 little-endian bytes, sign-extended when is_signed. */
bool as_cfi_fixed(pm_cfi_cur *c, uint32_t n, bool is_signed, uint64_t *out);
bool as_cfi_uleb(pm_cfi_cur *c, uint64_t *out);
bool as_cfi_sleb(pm_cfi_cur *c, int64_t *out);
/* A DW_EH_PE_* value; datarel is the DW_EH_PE_datarel base, 0 where that is meaningless. */
bool as_cfi_ptr(pm_cfi_cur *c, uint8_t enc, uint64_t datarel, uint64_t *out);
/* Step over an encoded pointer without applying it (nothing is dereferenced). */
bool as_cfi_ptr_skip(pm_cfi_cur *c, uint8_t enc);
/* Byte size of a fixed-size pointer format, 0 for LEB128 or an unknown format. */
uint32_t as_cfi_ptr_size(uint8_t enc);

/* What a CIE says that its FDEs and the interpreter need. */
typedef struct pm_cfi_cie {
	uint64_t insn, insn_end;        /* initial instructions */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;                    /* return address column */
	uint8_t fde_enc;                /* 'R', absptr by default */
	bool has_aug_data;              /* 'z': FDEs carry an augmentation length */
	bool signal;                    /* 'S' */
} pm_cfi_cie;

typedef struct pm_cfi_fde {
	pm_cfi_cie cie;
	uint64_t begin, end;            /* code covered, end exclusive */
	uint64_t insn, insn_end;
} pm_cfi_fde;

/* One .eh_frame entry (CIE or FDE). */
typedef struct pm_cfi_entry {
	uint64_t id_at;                 /* the CIE id (0) or CIE pointer field */
	uint64_t body;                  /* first byte after that field */
	uint64_t end;                   /* end of the entry, exclusive */
	uint64_t id;
} pm_cfi_entry;

/* The entry at addr; PM_CFI_NOINFO for the zero terminator. */
pm_cfi_result as_cfi_entry_read(const pm_mem *mem, uint64_t addr, pm_cfi_entry *e);
/* The address of an FDE entry's CIE: a CIE pointer counts back from its own field. */
bool as_cfi_cie_of(const pm_cfi_entry *fde, uint64_t *addr);
pm_cfi_result as_cfi_cie_parse(const pm_mem *mem, uint64_t addr, pm_cfi_cie *cie);
/* The FDE of entry e, whose CIE is `cie`. */
pm_cfi_result as_cfi_fde_parse(const pm_mem *mem, const pm_cfi_entry *e, const pm_cfi_cie *cie,
                               pm_cfi_fde *fde);

/* The FDE covering pc through the .eh_frame_hdr at hdr (table, else a linear walk). */
pm_cfi_result as_cfi_find(const pm_mem *mem, uint64_t hdr, uint64_t pc, pm_cfi_fde *fde);

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
/* Replace *cpu by the caller's registers the row gives (*cpu untouched unless PM_CFI_OK). */
pm_cfi_result as_cfi_apply(const pm_mem *mem, const pm_cfi_cie *cie, const pm_cfi_row *row, pm_cpu *cpu);

/* The pc the FDE and the row are looked up at: a return address may be one past
 * a noreturn call at the very end of its function, a signal frame's pc is exact. */
static inline uint64_t
pm_cfi_lookup_pc(const pm_cpu *cpu)
{
	return cpu->signal_frame ? cpu->pc : cpu->pc - 1;
}

/* Evaluate the expression [addr, addr + len) with registers of cpu; push *initial first
 * unless it is NULL.  False on anything unsupported, malformed or unreadable. */
bool as_cfi_expr_eval(const pm_mem *mem, const pm_cpu *cpu, uint64_t addr, uint32_t len,
                      const uint64_t *initial, uint64_t *out);

/* Register n of cpu; the return address column reads the pc (x86_64 RIP is DWARF 16). */
static inline bool
pm_cfi_reg_value(const pm_cpu *cpu, uint64_t n, uint64_t *out)
{
	if (n >= PM_DWARF_REGS)
		return false;
	if (n == PM_DWARF_RA) {
		*out = cpu->pc;
		return true;
	}
	if (!(cpu->valid >> n & 1))
		return false;
	*out = cpu->r[n];
	return true;
}

#endif
