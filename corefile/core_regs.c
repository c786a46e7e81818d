/*
 * core_regs.c — NT_PRSTATUS's registers (the kernel's user_regs_struct) in
 * the layout of each architecture's mcontext_t, which the capture engine
 * takes: the same registers a signal frame would have given it.  Both
 * architectures on either host, so an aarch64 core reads on x86_64.
 * NOT AS-safe.
 */
#include "core_internal.h"

#include <signal.h>

/* x86_64's user_regs_struct, in pr_reg's order. */
enum {
	U_R15, U_R14, U_R13, U_R12, U_RBP, U_RBX, U_R11, U_R10, U_R9, U_R8, U_RAX, U_RCX, U_RDX, U_RSI, U_RDI,
	U_ORIG_RAX, U_RIP, U_CS, U_EFLAGS, U_RSP, U_SS, U_FS_BASE, U_GS_BASE, U_DS, U_ES, U_FS, U_GS, U_COUNT
};
/* glibc's REG_* indexes of mcontext_t.gregs. */
enum {
	G_R8, G_R9, G_R10, G_R11, G_R12, G_R13, G_R14, G_R15, G_RDI, G_RSI, G_RBP, G_RBX, G_RDX, G_RAX, G_RCX,
	G_RSP, G_RIP, G_EFL, G_CSGSFS, G_ERR, G_TRAPNO, G_OLDMASK, G_CR2
};
/* pr_reg index of each greg that has one (-1: none). */
static const signed char x86_64_from[PM_CORE_X86_64_NGREG] = {
	[G_R8] = U_R8, [G_R9] = U_R9, [G_R10] = U_R10, [G_R11] = U_R11, [G_R12] = U_R12, [G_R13] = U_R13,
	[G_R14] = U_R14, [G_R15] = U_R15, [G_RDI] = U_RDI, [G_RSI] = U_RSI, [G_RBP] = U_RBP, [G_RBX] = U_RBX,
	[G_RDX] = U_RDX, [G_RAX] = U_RAX, [G_RCX] = U_RCX, [G_RSP] = U_RSP, [G_RIP] = U_RIP, [G_EFL] = U_EFLAGS,
	[G_CSGSFS] = -1, [G_ERR] = -1, [G_TRAPNO] = -1, [G_OLDMASK] = -1, [G_CR2] = -1,
};
enum { AARCH64_REGS = 34 }; /* x0-x30, sp, pc, pstate */

/* elf_prstatus: pr_reg starts after the siginfo head, cursig, the signal
 * sets, four pids and four timevals (112 bytes on both). */
enum { PRSTATUS_REG = 112 };

void
pmi_core_prstatus_layout(pm_core_arch arch, size_t *size, size_t *reg_off, size_t *reg_len)
{
	*reg_off = PRSTATUS_REG;
	*reg_len = 8u * (arch == PM_CORE_ARCH_AARCH64 ? AARCH64_REGS : U_COUNT);
	*size = PRSTATUS_REG + *reg_len + 8; /* pr_fpvalid and padding */
}

bool
pmi_core_take_regs(pm_core_arch arch, const unsigned char *reg, size_t n, pm_core_thread *t)
{
	if (arch == PM_CORE_ARCH_X86_64 && n == 8u * U_COUNT) {
		uint64_t *g = t->mc.x86_64.gregs;
		for (int i = 0; i < PM_CORE_X86_64_NGREG; i++)
			g[i] = x86_64_from[i] >= 0 ? pmi_core_u64(reg + 8 * x86_64_from[i]) : 0;
		/* The signal frame's cs, gs, fs and ss, 16 bits each. */
		g[G_CSGSFS] = (pmi_core_u64(reg + 8 * U_CS) & 0xffff) | (pmi_core_u64(reg + 8 * U_GS) & 0xffff) << 16 |
		              (pmi_core_u64(reg + 8 * U_FS) & 0xffff) << 32 | (pmi_core_u64(reg + 8 * U_SS) & 0xffff) << 48;
		g[G_OLDMASK] = t->sighold;
		t->pc = g[G_RIP];
		t->sp = g[G_RSP];
		return true;
	}
	if (arch == PM_CORE_ARCH_AARCH64 && n == 8u * AARCH64_REGS) {
		pm_core_mcontext_aarch64 *m = &t->mc.aarch64;
		for (int i = 0; i < 31; i++)
			m->regs[i] = pmi_core_u64(reg + 8 * i);
		m->sp = pmi_core_u64(reg + 8 * 31);
		m->pc = pmi_core_u64(reg + 8 * 32);
		m->pstate = pmi_core_u64(reg + 8 * 33);
		t->pc = m->pc;
		t->sp = m->sp;
		return true;
	}
	return false;
}

void
pmi_core_set_fault_address(pm_core_arch arch, pm_core_thread *t, const pm_core_siginfo *si)
{
	if (si->signo != SIGSEGV && si->signo != SIGBUS && si->signo != SIGILL && si->signo != SIGFPE &&
	    si->signo != SIGTRAP)
		return;
	if (arch == PM_CORE_ARCH_X86_64)
		t->mc.x86_64.gregs[G_CR2] = si->addr;
	else
		t->mc.aarch64.fault_address = si->addr;
}

#if defined(__x86_64__) || defined(__aarch64__)
#include <sys/ucontext.h>

#include "core_mcontext.h"

#if defined(__x86_64__)
_Static_assert(NGREG == (int)PM_CORE_X86_64_NGREG && (int)REG_R8 == (int)G_R8 && (int)REG_RSP == (int)G_RSP &&
               (int)REG_RIP == (int)G_RIP && (int)REG_CSGSFS == (int)G_CSGSFS && (int)REG_CR2 == (int)G_CR2,
               "glibc's gregs order");
#else
_Static_assert(offsetof(mcontext_t, regs) == offsetof(pm_core_mcontext_aarch64, regs) &&
               offsetof(mcontext_t, pstate) == offsetof(pm_core_mcontext_aarch64, pstate),
               "aarch64's mcontext_t head");
#endif

bool
pmi_core_thread_mcontext(const pm_core *c, const pm_core_thread *t, mcontext_t *out)
{
	if (c->arch != pmi_core_host_arch())
		return false;
	memset(out, 0, sizeof *out);
#if defined(__x86_64__)
	memcpy(out->gregs, t->mc.x86_64.gregs, sizeof t->mc.x86_64.gregs);
#else
	memcpy(out, &t->mc.aarch64, sizeof t->mc.aarch64);
#endif
	return true;
}
#endif
