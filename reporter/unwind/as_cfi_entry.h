/*
 * as_cfi_entry.h — AS-SAFE: the entries of .eh_frame, CIEs and FDEs, and
 * what each says (as_cfi_entry.c).
 */
#ifndef PM_REPORTER_AS_CFI_ENTRY_H
#define PM_REPORTER_AS_CFI_ENTRY_H

#include "as_cfi_read.h"

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

#endif
