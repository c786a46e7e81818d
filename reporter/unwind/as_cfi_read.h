/*
 * as_cfi_read.h — AS-SAFE: what every piece of the CFI step (as_cfi*.c)
 * reads unwind tables with: the outcome of a step, the limits that keep
 * every walk bounded, the pointer encodings, and a bounded cursor over a
 * pm_mem (as_cfi_read.c).
 */
#ifndef PM_REPORTER_AS_CFI_READ_H
#define PM_REPORTER_AS_CFI_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "as_memory.h"

typedef enum pm_cfi_result {
	PM_CFI_OK = 0,    /* *cpu now holds the caller's registers */
	PM_CFI_NOINFO,    /* no FDE covers this pc: try another strategy */
	PM_CFI_BAD,       /* the CFI is corrupt or uses something unsupported */
} pm_cfi_result;

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

#endif
