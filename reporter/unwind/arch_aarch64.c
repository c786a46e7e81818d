/*
 * arch_aarch64.c — AS-SAFE aarch64 specifics: registers from a signal context,
 * in DWARF numbering for the unwinder and in Apple's order for the report.
 *
 * The kernel's mcontext carries x0–x30, sp, pc, pstate and the fault
 * address; the exception syndrome (ESR) is a record in __reserved, present
 * for faults the kernel took itself (qemu-user writes none).
 */
#if defined(__aarch64__)
#include "arch.h"

#include <asm/sigcontext.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "as_tls_seen.h"
#include "decode.h"

const char as_arch_code_type[] = "ARM-64 (Native)";
const char as_arch_sigreturn_name[] = "__kernel_rt_sigreturn";
const char as_arch_name[] = "arm64";
const pm_arch as_arch_id = PM_ARCH_ARM64;

void
as_arch_cpu_from_mcontext(const mcontext_t *mc, pm_cpu *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < 31; i++)
		out->r[i] = mc->regs[i];
	out->r[PM_DWARF_SP] = mc->sp;
	out->pc = mc->pc;
	out->r[PM_DWARF_RA] = out->pc;
	out->valid = (UINT64_C(1) << PM_DWARF_REGS) - 1;
	out->signal_frame = true;
}

/* The ESR record in __reserved: records are {magic, size} headers, the list
 * ends with a zero magic; sizes are bounded by the area so a bad one stops the walk. */
static bool
esr_of(const mcontext_t *mc, uint64_t *esr)
{
	const unsigned char *p = mc->__reserved, *end = p + sizeof mc->__reserved;
	while ((size_t)(end - p) >= sizeof(struct _aarch64_ctx)) {
		struct _aarch64_ctx head;
		memcpy(&head, p, sizeof head);
		if (head.magic == 0 || head.size < sizeof head || head.size > (size_t)(end - p))
			return false;
		if (head.magic == ESR_MAGIC && head.size >= sizeof(struct esr_context)) {
			memcpy(esr, p + offsetof(struct esr_context, esr), sizeof *esr);
			return true;
		}
		p += head.size;
	}
	return false;
}

static pm_reg *
add(pm_regs *out, const char *name, uint64_t value)
{
	pm_reg *r = &out->reg[out->count++];
	size_t n = strlen(name);
	memcpy(r->name, name, n + 1 < sizeof r->name ? n + 1 : sizeof r->name);
	r->value = value;
	return r;
}

/* Apple's arm64 order (format reference §8): x0–x28, fp, lr, sp, pc, cpsr, far, esr. */
void
as_arch_model_regs(const mcontext_t *mc, bool fault, pm_regs *out)
{
	static const char names[29][4] = {
		"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
		"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
		"x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",
	};
	memset(out, 0, sizeof *out);
	out->arch = PM_ARCH_ARM64;
	for (int i = 0; i < 29; i++)
		add(out, names[i], mc->regs[i]);
	add(out, "fp", mc->regs[29]);
	add(out, "lr", mc->regs[30]);
	add(out, "sp", mc->sp);
	add(out, "pc", mc->pc);
	add(out, "cpsr", mc->pstate & 0xffffffffu);
	/* far and esr mean something only for the thread that took the fault. */
	if (!fault)
		return;
	add(out, "far", mc->fault_address);
	uint64_t esr;
	if (esr_of(mc, &esr)) {
		add(out, "esr", esr);
		out->esr_description = pmi_decode_esr((uint32_t)esr);
	}
}

/* At __kernel_rt_sigreturn sp is the kernel's rt_sigframe: a siginfo, then
 * the ucontext whose uc_mcontext the kernel restores. */
uint64_t
as_arch_sigframe_mcontext(uint64_t sp)
{
	return sp + sizeof(siginfo_t) + offsetof(ucontext_t, uc_mcontext);
}

uint64_t
as_arch_sigframe_siginfo(uint64_t sp)
{
	return sp;
}

/* fault_address is kept for any synchronous exception; telling a data abort
 * from the others needs the ESR's class: not done yet. */
bool
as_arch_fault_address(const mcontext_t *mc, uint64_t *addr)
{
	(void)mc;
	(void)addr;
	return false;
}

uint64_t
as_arch_pc(const mcontext_t *mc)
{
	return mc->pc;
}

uint64_t
as_arch_sp(const mcontext_t *mc)
{
	return mc->sp;
}

/* Pointer authentication signs the bits above the virtual address size;
 * user-space code lives below 2^48 (2^52 with LVA, unused by Linux user
 * space by default), so clearing them restores the address. */
uint64_t
as_arch_strip_ra(uint64_t ra)
{
	return ra & ((UINT64_C(1) << 48) - 1);
}

/* A system call straight from registers: libc's wrappers store errno in
 * TLS on failure, which is what may be broken here. */
static long
trap(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
	                 : "+r"(x0)
	                 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
	                 : "memory");
	return x0;
}

/* The thread pointer is tpidr_el0, pointing at glibc's TCB (dtv, private)
 * with struct pthread below it; unlike x86_64 nothing there points back at
 * it, so a thread pointer is judged bad when its TCB cannot be read.  The
 * one remembered is the installing thread's (usually the main thread's). */
static uint64_t good_tls;

static uint64_t
tls_now(void)
{
	uint64_t tp;
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
	return tp;
}

static void
tls_set(uint64_t tp)
{
	__asm__ volatile("msr tpidr_el0, %0" : : "r"(tp) : "memory");
}

static bool
tls_readable(uint64_t tp)
{
	uint64_t tcb[2];
	struct iovec local = { tcb, sizeof tcb }, remote = { (void *)(uintptr_t)tp, sizeof tcb };
	long n = trap(SYS_process_vm_readv, trap(SYS_getpid, 0, 0, 0, 0, 0, 0), (long)&local, 1,
	              (long)&remote, 1, 0);
	/* Where the read itself is refused (a sandbox, qemu-user), nothing says it is bad. */
	if (n == -EPERM || n == -ENOSYS)
		return tp != 0;
	return n == (long)sizeof tcb;
}

void
as_arch_tls_remember(void)
{
	good_tls = tls_now();
}

uint64_t
as_arch_tls_repair(void)
{
	uint64_t tp = tls_now();
	if (good_tls && tp != good_tls && !as_tls_seen(tp)) {
		if (tls_readable(tp))
			as_tls_saw(tp);
		else
			tls_set(good_tls);
	}
	return tp;
}

void
as_arch_tls_put_back(uint64_t saved)
{
	if (tls_now() != saved)
		tls_set(saved);
}

/* __kernel_rt_sigreturn (the vDSO's, and qemu-user's own trampoline):
 * mov x8, #139 (rt_sigreturn); svc #0. */
bool
as_arch_is_sigreturn(const uint8_t *code, size_t n)
{
	static const uint8_t rt_sigreturn[] = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 };
	return n >= sizeof rt_sigreturn && memcmp(code, rt_sigreturn, sizeof rt_sigreturn) == 0;
}

/* A minidump's CPU_INFORMATION for arm64 would come from MIDR_EL1, which user
 * space reads only where the kernel emulates it; it stays zero (readers need
 * only SystemInfo's processor architecture to read the thread contexts). */
void
as_arch_minidump_cpu(uint8_t *level, uint8_t *revision, uint8_t *info)
{
	(void)level;
	(void)revision;
	(void)info;
}
#endif
