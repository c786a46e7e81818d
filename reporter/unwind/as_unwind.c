/*
 * as_unwind.c — AS-SAFE stack walk (see as_unwind.h for the strategy order).
 *
 *   as_unwind()
 *     step()               one caller, by the first strategy that answers
 *       step_cfi()         as_cfi.c over the image's .eh_frame_hdr
 *       step_sigreturn()   kernel signal trampoline: registers saved on the stack
 *       step_fp()          frame pointer chain, validated against the stack mapping
 *       step_entry()       frame 0 only, pc not in code: return address at [sp] (arm64: lr)
 *     plausible()          the caller must be code, above the callee on the stack
 */
#include "as_unwind.h"

#include <sys/mman.h>

#include "as_cfi_cache.h"

enum { STEP_OK, STEP_NOINFO, STEP_END };

static bool
is_code(const pm_unwind_env *env, uint64_t pc)
{
	const pm_as_map *m = as_map_for(env->images, pc);
	return m && (m->prot & PROT_EXEC);
}

static uint64_t
lookup_pc(const pm_cpu *cpu)
{
	return cpu->signal_frame || cpu->pc == 0 ? cpu->pc : cpu->pc - 1;
}

static int
step_cfi(const pm_unwind_env *env, pm_cpu *cpu)
{
	const pm_as_image *im = as_image_for(env->images, lookup_pc(cpu));
	if (!im || !im->eh_frame_hdr)
		return STEP_NOINFO;
	pm_cpu next = *cpu;
	if (as_cfi_step_cached(env->cfi_cache, &env->mem, im->eh_frame_hdr, &next) != PM_CFI_OK)
		return STEP_NOINFO;
	if (next.pc == 0 && !(next.valid & (1ull << PM_DWARF_RA)))
		return STEP_END; /* return address undefined: the outermost frame */
	*cpu = next;
	return STEP_OK;
}

static int
step_sigreturn(const pm_unwind_env *env, pm_cpu *cpu)
{
	uint8_t code[PM_ARCH_SIGRETURN_LEN];
	mcontext_t mc;
	if (!pm_mem_read(&env->mem, cpu->pc, code, sizeof code) || !as_arch_is_sigreturn(code, sizeof code))
		return STEP_NOINFO;
	uint64_t at = as_arch_sigframe_mcontext(cpu->r[PM_DWARF_SP]);
	if (!at || !pm_mem_read(&env->mem, at, &mc, sizeof mc))
		return STEP_NOINFO;
	as_arch_cpu_from_mcontext(&mc, cpu);
	return STEP_OK;
}

static int
step_fp(const pm_unwind_env *env, pm_cpu *cpu)
{
	uint64_t fp = cpu->r[PM_DWARF_FP], sp = cpu->r[PM_DWARF_SP];
	const pm_as_map *stack = as_map_for(env->images, sp);
	uint64_t saved[2];
	if (!(cpu->valid & (1ull << PM_DWARF_FP)) || !stack || fp % sizeof(uint64_t) != 0 ||
	    fp < sp || fp + sizeof saved > stack->end || !pm_mem_read(&env->mem, fp, saved, sizeof saved))
		return STEP_NOINFO;
	/* A caller's frame lies above ours; 0 ends the chain. */
	if (saved[0] != 0 && saved[0] <= fp)
		return STEP_NOINFO;
	cpu->r[PM_DWARF_FP] = saved[0];
	cpu->r[PM_DWARF_SP] = fp + sizeof saved;
	cpu->pc = as_arch_strip_ra(saved[1]);
	cpu->valid = (1ull << PM_DWARF_FP) | (1ull << PM_DWARF_SP);
	cpu->signal_frame = false;
	return STEP_OK;
}

/* A call to a pc that is not code (a NULL or stray function pointer): the
 * return address is where the call left it, untouched by any prologue. */
static int
step_entry(const pm_unwind_env *env, pm_cpu *cpu)
{
	uint64_t ra;
#ifdef PM_ARCH_LINK_REG
	ra = as_arch_strip_ra(cpu->r[PM_ARCH_LINK_REG]);
	if (!(cpu->valid & (1ull << PM_ARCH_LINK_REG)) || !is_code(env, ra))
		return STEP_NOINFO;
#else
	uint64_t sp = cpu->r[PM_DWARF_SP];
	if (!pm_mem_u64(&env->mem, sp, &ra) || !is_code(env, ra))
		return STEP_NOINFO;
	cpu->r[PM_DWARF_SP] = sp + sizeof ra;
#endif
	cpu->pc = ra;
	cpu->signal_frame = false;
	return STEP_OK;
}

static bool
plausible(const pm_unwind_env *env, const pm_cpu *callee, const pm_cpu *caller, bool crossed_signal)
{
	if (!is_code(env, caller->pc))
		return false;
	/* Stacks grow down: a caller's sp is higher, except across a signal
	 * frame, which may switch between the alternate and the thread stack.
	 * (Equal where a call pushes nothing: an arm64 leaf's caller.) */
	return crossed_signal || caller->r[PM_DWARF_SP] >= callee->r[PM_DWARF_SP] + PM_ARCH_MIN_FRAME;
}

/* One caller of *cpu; *how says which strategy found it. */
static int
step(const pm_unwind_env *env, pm_cpu *cpu, uint32_t index, uint8_t *how, const char **why)
{
	pm_cpu next = *cpu;
	bool pc_is_code = is_code(env, cpu->pc);
	int r = STEP_NOINFO;
	if (PM_ARCH_SIGRETURN_FIRST && pc_is_code) {
		r = step_sigreturn(env, &next);
		*how = PM_HOW_CONTEXT;
	}
	if (r == STEP_NOINFO && pc_is_code) {
		next = *cpu;
		r = step_cfi(env, &next);
		/* Through a signal trampoline's CFI the caller's registers come from the
		 * saved context, and its pc is exact: the frame is a context frame. */
		*how = next.signal_frame ? PM_HOW_CONTEXT : PM_HOW_CFI;
	}
	if (r == STEP_NOINFO && pc_is_code && !PM_ARCH_SIGRETURN_FIRST) {
		next = *cpu;
		r = step_sigreturn(env, &next);
		*how = PM_HOW_CONTEXT;
	}
	if (r == STEP_NOINFO && index == 0 && !pc_is_code) {
		next = *cpu;
		r = step_entry(env, &next);
		*how = PM_HOW_SCAN;
	}
	if (r == STEP_NOINFO) {
		next = *cpu;
		r = step_fp(env, &next);
		*how = PM_HOW_FP;
	}
	if (r == STEP_NOINFO) {
		*why = pc_is_code                  ? "no unwind information and no valid frame pointer"
		       : env->images->map_count == 0 ? "the memory map could not be read (no /proc?)"
		                                     : "the pc is not in executable memory";
		return STEP_END;
	}
	if (r == STEP_END)
		return STEP_END;
	if (next.pc == 0) {
		*why = "the return address is 0 (corrupt stack?)";
		return STEP_END;
	}
	if (!plausible(env, cpu, &next, *how == PM_HOW_CONTEXT || next.signal_frame)) {
		*why = "the next return address is not plausible (corrupt stack?)";
		return STEP_END;
	}
	*cpu = next;
	return STEP_OK;
}

uint32_t
as_unwind(const pm_unwind_env *env, const pm_cpu *start, pm_frame *out, uint32_t max, const char **stop)
{
	pm_cpu cpu = *start;
	uint32_t n = 0;
	*stop = NULL;
	if (max == 0)
		return 0;
	out[n++] = (pm_frame){ .address = cpu.pc, .image = -1, .how = PM_HOW_CONTEXT };
	while (n < max) {
		uint8_t how;
		uint64_t prev_pc = cpu.pc, prev_sp = cpu.r[PM_DWARF_SP];
		if (step(env, &cpu, n - 1, &how, stop) != STEP_OK)
			return n;
		if (cpu.pc == prev_pc && cpu.r[PM_DWARF_SP] == prev_sp) {
			*stop = "the unwinder made no progress (loop)";
			return n;
		}
		/* Its caller came from a saved signal context: the frame just
		 * walked is the kernel's signal trampoline, which symbol tables
		 * leave unnamed (glibc's __restore_rt has size 0).  Name it. */
		if (how == PM_HOW_CONTEXT && n > 1 && !out[n - 1].symbol)
			out[n - 1].symbol = as_arch_sigreturn_name;
		out[n++] = (pm_frame){ .address = cpu.pc, .image = -1, .how = how };
	}
	*stop = "the frame limit was reached";
	return n;
}
