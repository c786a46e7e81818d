/*
 * arch.h — the small interface behind which each CPU architecture lives
 * (reporter/unwind/arch_<cpu>.c).  AS-SAFE throughout.
 *
 * The unwinder works on DWARF-numbered registers; the report model wants
 * Apple-named registers in Apple's order.  Both views come from the signal
 * context (mcontext_t) through the functions below.
 */
#ifndef PM_REPORTER_ARCH_H
#define PM_REPORTER_ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "postmortem-tools.h"

#if defined(__x86_64__)
/* DWARF register numbers (System V AMD64 psABI): rax rdx rcx rbx rsi rdi rbp rsp r8–r15, RA = 16. */
enum { PM_DWARF_REGS = 17, PM_DWARF_SP = 7, PM_DWARF_FP = 6, PM_DWARF_RA = 16 };
/* A call pushes the return address: a caller's sp is at least 8 above its callee's.
 * glibc's __restore_rt has CFI that reads the saved context, so CFI goes first. */
enum { PM_ARCH_MIN_FRAME = 8, PM_ARCH_SIGRETURN_FIRST = 0, PM_ARCH_SIGRETURN_LEN = 9 };
#elif defined(__aarch64__)
/* x0–x30 = 0–30, sp = 31, pc carried as 32. */
enum { PM_DWARF_REGS = 33, PM_DWARF_SP = 31, PM_DWARF_FP = 29, PM_DWARF_RA = 32 };
/* A call leaves the return address in x30: a leaf's caller may share its sp.
 * The vDSO's __kernel_rt_sigreturn CFI recovers only x29 and x30 (not the
 * interrupted pc), so the saved context is read before any CFI. */
enum { PM_ARCH_MIN_FRAME = 0, PM_ARCH_SIGRETURN_FIRST = 1, PM_ARCH_SIGRETURN_LEN = 8 };
/* Where a call leaves the return address (x86_64: at sp). */
#define PM_ARCH_LINK_REG 30
#else
#error "postmortem: unsupported architecture (add reporter/unwind/arch_<cpu>.c)"
#endif

/* A register set the unwinder steps: DWARF numbers, with a validity mask. */
typedef struct pm_cpu {
	uint64_t r[PM_DWARF_REGS];
	uint64_t valid;            /* bit i: r[i] is known */
	uint64_t pc;
	bool signal_frame;         /* pc is exact (interrupted), not a return address */
} pm_cpu;

/* Registers of a signal context as the unwinder's starting point. */
void as_arch_cpu_from_mcontext(const mcontext_t *mc, pm_cpu *out);
/* Apple-named registers of a context into the model (with exception state when `fault`). */
void as_arch_model_regs(const mcontext_t *mc, bool fault, pm_regs *out);
/* Where a kernel signal frame (__restore_rt) keeps the interrupted context, given the
 * stack pointer at the trampoline; 0 if this architecture does not say. */
uint64_t as_arch_sigframe_mcontext(uint64_t sp);
/* Where the same frame keeps the signal's siginfo (written only for a handler
 * installed with SA_SIGINFO). */
uint64_t as_arch_sigframe_siginfo(uint64_t sp);
/* The address a memory fault's saved context reports (x86_64: cr2 of a page
 * fault); false when this architecture or this context does not say. */
bool as_arch_fault_address(const mcontext_t *mc, uint64_t *addr);
/* True when the bytes at pc are the kernel's signal-return trampoline. */
bool as_arch_is_sigreturn(const uint8_t *code, size_t n);
/* The signal trampoline's name, for the frame the kernel's signal return leaves. */
extern const char as_arch_sigreturn_name[];
/* A return address as code address: pointer-authentication bits stripped
 * (arm64), unchanged elsewhere. */
uint64_t as_arch_strip_ra(uint64_t ra);
/* The interrupted pc and stack pointer of a context. */
uint64_t as_arch_pc(const mcontext_t *mc);
uint64_t as_arch_sp(const mcontext_t *mc);

/*
 * The thread pointer (TLS).  An app that corrupts it would make the handler
 * fault on its first errno access or stack-protector check, before any
 * report.  Remember a good one at install (NOT AS-safe); at handler entry,
 * repair replaces a thread pointer that does not point at itself with the
 * remembered one and returns what to put back on the way out.  Neither
 * touches errno or TLS.
 */
void as_arch_tls_remember(void);
uint64_t as_arch_tls_repair(void);
void as_arch_tls_put_back(uint64_t saved);

/* A minidump SystemInfo's processor_level and processor_revision (2 bytes each, little
 * endian) and its 24-byte CPU_INFORMATION, from the CPU itself. */
void as_arch_minidump_cpu(uint8_t *level, uint8_t *revision, uint8_t *info);
/* Report strings: "X86-64 (Native)", "x86_64"; "ARM-64 (Native)", "arm64". */
extern const char as_arch_code_type[];
extern const char as_arch_name[];
extern const pm_arch as_arch_id;

#endif
