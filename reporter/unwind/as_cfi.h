/*
 * as_cfi.h — AS-SAFE DWARF call-frame-information unwinding step.
 *
 * Debian's libc and most release builds have no frame pointers; .eh_frame
 * is what tells how to find a caller.  This interprets it in the handler:
 * no allocation, no locks (libunwind's local unwinder reaches
 * dl_iterate_phdr, which takes the loader lock), every loop bounded, every
 * read through a pm_mem source.
 */
#ifndef PM_REPORTER_AS_CFI_H
#define PM_REPORTER_AS_CFI_H

#include "as_cfi_prog.h"

/*
 * One step: find the FDE covering the pc through the image's .eh_frame_hdr
 * (runtime address `eh_frame_hdr`), run the CIE and FDE programs up to the
 * pc, and replace *cpu by the caller's registers: r[PM_DWARF_SP] = CFA,
 * pc = the return address, valid bits per the register rules, signal_frame
 * = the CIE has the 'S' augmentation (the caller's pc is exact).
 * The lookup uses pc - 1 unless cpu->signal_frame (a return address points
 * after the call, possibly past the end of a noreturn caller).
 * An undefined return-address rule (_start, thread entry points) marks the
 * outermost frame: PM_CFI_OK with pc = 0 and the PM_DWARF_RA valid bit clear,
 * where the unwinder stops; a 0 read from the stack keeps the bit set.
 * *cpu is left untouched unless the result is PM_CFI_OK.
 */
pm_cfi_result as_cfi_step(const pm_mem *mem, uint64_t eh_frame_hdr, pm_cpu *cpu);
/* The caller's registers that a row of rules gives, in place of *cpu (*cpu
 * untouched unless PM_CFI_OK): the step's last part, which the cache
 * (as_cfi_cache.c) applies to a row it kept. */
pm_cfi_result as_cfi_apply(const pm_mem *mem, const pm_cfi_cie *cie, const pm_cfi_row *row, pm_cpu *cpu);

#endif
