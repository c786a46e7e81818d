/*
 * as_cfi_hdr.h — AS-SAFE: the FDE that covers a pc, found through an
 * image's .eh_frame_hdr, or its .eh_frame when it has none (as_cfi_hdr.c).
 */
#ifndef PM_REPORTER_AS_CFI_HDR_H
#define PM_REPORTER_AS_CFI_HDR_H

#include "as_cfi_entry.h"

/* The key of an image's tables when it has an .eh_frame and no
 * .eh_frame_hdr (a -static executable's): the .eh_frame's address, which
 * is even, tagged with its low bit.  The walks find its FDEs one by one. */
static inline uint64_t
as_cfi_bare(uint64_t eh_frame)
{
	return eh_frame | 1;
}

/* The FDE covering pc through the .eh_frame_hdr at hdr (table, else a
 * linear walk), or the bare .eh_frame of as_cfi_bare (a linear walk). */
pm_cfi_result as_cfi_find(const pm_mem *mem, uint64_t hdr, uint64_t pc, pm_cfi_fde *fde);

#endif
