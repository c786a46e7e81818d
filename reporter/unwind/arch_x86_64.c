/*
 * arch_x86_64.c — AS-SAFE x86_64 specifics: registers from a signal context,
 * in DWARF numbering for the unwinder and in Apple's order for the report.
 */
#if defined(__x86_64__)
#include "arch.h"

#include <asm/prctl.h>
#include <cpuid.h>
#include <errno.h>
#include <asm/hwcap2.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "as_tls_seen.h"
#include "minidump.h"

const char as_arch_code_type[] = "X86-64 (Native)";
const char as_arch_sigreturn_name[] = "__restore_rt";
const char as_arch_name[] = "x86_64";
const pm_arch as_arch_id = PM_ARCH_X86_64;

/* DWARF register n lives in gregs[dwarf_to_greg[n]]. */
static const int dwarf_to_greg[16] = {
	REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

void
as_arch_cpu_from_mcontext(const mcontext_t *mc, pm_cpu *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < 16; i++)
		out->r[i] = (uint64_t)mc->gregs[dwarf_to_greg[i]];
	out->pc = (uint64_t)mc->gregs[REG_RIP];
	out->r[PM_DWARF_RA] = out->pc;
	out->valid = (1u << PM_DWARF_REGS) - 1;
	out->signal_frame = true;
}

/* Apple's x86_64 order (format reference §8.3). */
static const struct {
	char name[4];
	int greg;
} apple_order[] = {
	{ "rax", REG_RAX }, { "rbx", REG_RBX }, { "rcx", REG_RCX }, { "rdx", REG_RDX },
	{ "rdi", REG_RDI }, { "rsi", REG_RSI }, { "rbp", REG_RBP }, { "rsp", REG_RSP },
	{ "r8", REG_R8 }, { "r9", REG_R9 }, { "r10", REG_R10 }, { "r11", REG_R11 },
	{ "r12", REG_R12 }, { "r13", REG_R13 }, { "r14", REG_R14 }, { "r15", REG_R15 },
	{ "rip", REG_RIP }, { "rfl", REG_EFL }, { "cr2", REG_CR2 },
};

void
as_arch_model_regs(const mcontext_t *mc, bool fault, pm_regs *out)
{
	memset(out, 0, sizeof *out);
	out->arch = PM_ARCH_X86_64;
	for (size_t i = 0; i < sizeof apple_order / sizeof apple_order[0]; i++) {
		/* cr2 means something only for the thread that took the fault. */
		if (!fault && apple_order[i].greg == REG_CR2)
			continue;
		pm_reg *r = &out->reg[out->count++];
		memcpy(r->name, apple_order[i].name, sizeof apple_order[i].name);
		r->value = (uint64_t)mc->gregs[apple_order[i].greg];
	}
	if (fault) {
		out->has_trap = true;
		out->trap_number = (uint64_t)mc->gregs[REG_TRAPNO];
		out->error_code = (uint64_t)mc->gregs[REG_ERR];
	}
}

/* When the handler returns to the trampoline it has popped the kernel
 * rt_sigframe's return address (pretcode): sp then points at the frame's
 * struct ucontext, whose uc_mcontext sits 40 bytes in. */
uint64_t
as_arch_sigframe_mcontext(uint64_t sp)
{
	return sp + offsetof(ucontext_t, uc_mcontext);
}

/* The siginfo follows the kernel's struct ucontext, whose signal mask is
 * the kernel's 8 bytes (glibc's ucontext_t reserves more). */
uint64_t
as_arch_sigframe_siginfo(uint64_t sp)
{
	return sp + offsetof(ucontext_t, uc_sigmask) + sizeof(uint64_t);
}

bool
as_arch_fault_address(const mcontext_t *mc, uint64_t *addr)
{
	enum { TRAP_PAGE_FAULT = 14 };
	if (mc->gregs[REG_TRAPNO] != TRAP_PAGE_FAULT)
		return false;
	*addr = (uint64_t)mc->gregs[REG_CR2];
	return true;
}

uint64_t
as_arch_strip_ra(uint64_t ra)
{
	return ra;
}

uint64_t
as_arch_pc(const mcontext_t *mc)
{
	return (uint64_t)mc->gregs[REG_RIP];
}

uint64_t
as_arch_sp(const mcontext_t *mc)
{
	return (uint64_t)mc->gregs[REG_RSP];
}

/* A system call straight from registers: libc's wrappers store errno in
 * TLS on failure, which is what may be broken here. */
static long
trap(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return ret;
}

/* glibc's thread pointer is the address of its TCB, whose first word
 * points at itself.  The one remembered is the installing thread's, which
 * lives as long as the process in the usual case (the main thread). */
static uint64_t good_tls;
/* The kernel lets user code read the FS base itself (Linux 5.9, a CPU with
 * FSGSBASE: AT_HWCAP2): every fatal signal reads it twice, and a runtime's
 * handled faults are each one (as_chain.h), where two system calls were a
 * fifth of a fault's cost. */
static bool fsgsbase;

static uint64_t
tls_now(void)
{
	uint64_t fs = 0;
	if (fsgsbase)
		__asm__ volatile("rdfsbase %0" : "=r"(fs));
	else
		trap(SYS_arch_prctl, ARCH_GET_FS, (long)&fs, 0, 0, 0, 0);
	return fs;
}

static bool
tls_points_at_itself(uint64_t fs)
{
	uint64_t self = 0;
	struct iovec local = { &self, sizeof self }, remote = { (void *)(uintptr_t)fs, sizeof self };
	long n = trap(SYS_process_vm_readv, trap(SYS_getpid, 0, 0, 0, 0, 0, 0), (long)&local, 1,
	              (long)&remote, 1, 0);
	/* Where the read itself is refused (a sandbox), nothing says it is bad. */
	if (n == -EPERM || n == -ENOSYS)
		return true;
	return n == (long)sizeof self && self == fs;
}

/* At install the thread pointer is sound, so its self-pointer says where it
 * is without a system call (pm_install is paid at every start). */
void
as_arch_tls_remember(void)
{
	uint64_t fs;
	__asm__("mov %%fs:0, %0" : "=r"(fs));
	good_tls = fs;
	fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
}

uint64_t
as_arch_tls_repair(void)
{
	uint64_t fs = tls_now();
	if (good_tls && fs != good_tls && !as_tls_seen(fs)) {
		if (tls_points_at_itself(fs))
			as_tls_saw(fs);
		else
			trap(SYS_arch_prctl, ARCH_SET_FS, (long)good_tls, 0, 0, 0, 0);
	}
	return fs;
}

void
as_arch_tls_put_back(uint64_t saved)
{
	if (tls_now() != saved)
		trap(SYS_arch_prctl, ARCH_SET_FS, (long)saved, 0, 0, 0, 0);
}

/* glibc's __restore_rt: mov $0xf,%rax; syscall. */
bool
as_arch_is_sigreturn(const uint8_t *code, size_t n)
{
	static const uint8_t restore_rt[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	return n >= sizeof restore_rt && memcmp(code, restore_rt, sizeof restore_rt) == 0;
}
/* cpuid is an instruction, not a call: the same answer anywhere. */
void
as_arch_minidump_cpu(uint8_t *level, uint8_t *revision, uint8_t *info)
{
	unsigned a = 0, b = 0, c = 0, d = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	pm_md_put32(info, b); /* the vendor string: ebx, edx, ecx */
	pm_md_put32(info + 4, d);
	pm_md_put32(info + 8, c);
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	pm_md_put32(info + 12, a);
	pm_md_put32(info + 16, d);
	unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 6 || family >= 0xf)
		model += ((a >> 16) & 0xf) << 4;
	pm_md_put16(level, (uint16_t)family);
	pm_md_put16(revision, (uint16_t)(model << 8 | (a & 0xf)));
	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		pm_md_put32(info + 20, b);
}
#endif
