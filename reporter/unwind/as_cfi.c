/*
 * as_cfi.c — AS-SAFE DWARF CFI unwinding step (see as_cfi.h): find the FDE
 * (as_cfi_hdr.c), run its instructions to the pc (as_cfi_prog.c), then turn
 * the row of rules into the caller's registers.
 *
 * The caller's registers are built apart and copied out only on success, so
 * a failed step leaves *cpu as it was.  Any unreadable saved slot fails the
 * step: a half-recovered frame would mislead the walk more than stopping it.
 */
#include "as_cfi.h"

#include "as_cfi_expr.h"
#include "as_cfi_hdr.h"

static bool
cfa_of(const pm_mem *mem, const pm_cpu *cpu, const pm_cfi_rule *rule, uint64_t *cfa)
{
	uint64_t base;
	switch (rule->how) {
	case PM_CFI_REG:
		if (!pm_cfi_reg_value(cpu, rule->reg, &base))
			return false;
		*cfa = base + rule->arg;
		return true;
	case PM_CFI_VAL_EXPR:
		return as_cfi_expr_eval(mem, cpu, rule->arg, rule->len, NULL, cfa);
	default:
		return false; /* the FDE never defined a CFA */
	}
}

/* The caller's value of register n; *known false when its rule leaves it unknown.
 * False when a rule cannot be carried out. */
static bool
recover(const pm_mem *mem, const pm_cpu *cpu, unsigned n, const pm_cfi_rule *rule, uint64_t cfa,
        uint64_t *v, bool *known)
{
	uint64_t addr;
	*known = true;
	switch (rule->how) {
	case PM_CFI_SAME:
		*known = pm_cfi_reg_value(cpu, n, v);
		return true;
	case PM_CFI_UNDEF:
		*known = false;
		return true;
	case PM_CFI_OFFSET:
		return pm_mem_u64(mem, cfa + rule->arg, v);
	case PM_CFI_VAL_OFFSET:
		*v = cfa + rule->arg;
		return true;
	case PM_CFI_REG:
		*known = pm_cfi_reg_value(cpu, rule->reg, v);
		return true;
	case PM_CFI_EXPR:
		return as_cfi_expr_eval(mem, cpu, rule->arg, rule->len, &cfa, &addr) &&
		       pm_mem_u64(mem, addr, v);
	case PM_CFI_VAL_EXPR:
		return as_cfi_expr_eval(mem, cpu, rule->arg, rule->len, &cfa, v);
	}
	return false;
}

/*
 * The caller's stack pointer.  A return address is saved below the CFA, in
 * the callee's frame; one at or above it means the CFA understates where the
 * caller's frame begins.  That is arm64 glibc's lazy-binding trampoline
 * (_dl_runtime_resolve): the PLT pushed {&PLTGOT[n], lr} before jumping
 * there, its CFI saves lr at CFA+8 but leaves the CFA at the pushed sp, so
 * the caller's sp is 16 above it, just past the saved lr.  (Not for signal
 * frames: the vDSO's CFA is x29, and its saved context is read elsewhere.)
 */
static uint64_t
caller_sp(const pm_cfi_cie *cie, const pm_cfi_row *row, uint64_t cfa)
{
	const pm_cfi_rule *ra = &row->reg[cie->ra];
	if (cie->signal || ra->how != PM_CFI_OFFSET || (int64_t)ra->arg < 0)
		return cfa;
	return cfa + ra->arg + sizeof(uint64_t);
}

pm_cfi_result
as_cfi_apply(const pm_mem *mem, const pm_cfi_cie *cie, const pm_cfi_row *row, pm_cpu *cpu)
{
	pm_cpu caller = { .valid = 0, .signal_frame = cie->signal };
	uint64_t cfa;
	if (cie->ra >= PM_DWARF_REGS || !cfa_of(mem, cpu, &row->cfa, &cfa))
		return PM_CFI_BAD;
	for (unsigned n = 0; n < PM_DWARF_REGS; n++) {
		bool known;
		if (!recover(mem, cpu, n, &row->reg[n], cfa, &caller.r[n], &known))
			return PM_CFI_BAD;
		caller.valid |= (uint64_t)known << n;
	}
	bool ra_known = caller.valid >> cie->ra & 1;
	if (ra_known)
		caller.pc = as_arch_strip_ra(caller.r[cie->ra]);
	else if (row->reg[cie->ra].how != PM_CFI_UNDEF)
		return PM_CFI_BAD;
	/* else: an undefined return address marks the outermost frame, reported
	 * as pc 0 with the RA bit clear (a 0 read from the stack keeps it set). */
	caller.r[PM_DWARF_SP] = caller_sp(cie, row, cfa);
	caller.valid |= UINT64_C(1) << PM_DWARF_SP;
	caller.r[PM_DWARF_RA] = caller.pc;
	caller.valid &= ~(UINT64_C(1) << PM_DWARF_RA);
	caller.valid |= (uint64_t)ra_known << PM_DWARF_RA;
	*cpu = caller;
	return PM_CFI_OK;
}

pm_cfi_result
as_cfi_step(const pm_mem *mem, uint64_t eh_frame_hdr, pm_cpu *cpu)
{
	pm_cfi_fde fde;
	pm_cfi_row row;
	pm_cfi_result r;
	if (eh_frame_hdr == 0 || cpu->pc == 0)
		return PM_CFI_NOINFO;
	uint64_t pc = pm_cfi_lookup_pc(cpu);
	if ((r = as_cfi_find(mem, eh_frame_hdr, pc, &fde)) != PM_CFI_OK ||
	    (r = as_cfi_run(mem, &fde, pc, &row)) != PM_CFI_OK)
		return r;
	return as_cfi_apply(mem, &fde.cie, &row, cpu);
}
