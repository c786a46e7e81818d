/*
 * as_cfi_hdr.h — AS-SAFE: the FDE that covers a pc, found through an
 * image's .eh_frame_hdr (as_cfi_hdr.c).
 */
#ifndef PM_REPORTER_AS_CFI_HDR_H
#define PM_REPORTER_AS_CFI_HDR_H

#include "as_cfi_entry.h"

/* The FDE covering pc through the .eh_frame_hdr at hdr (table, else a linear walk). */
pm_cfi_result as_cfi_find(const pm_mem *mem, uint64_t hdr, uint64_t pc, pm_cfi_fde *fde);

#endif
