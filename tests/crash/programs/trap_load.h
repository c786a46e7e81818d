/*
 * trap_load.h — int trap_load(const volatile int *p): one load, at its first
 * instruction, so that a SIGSEGV handler can return from it by hand with -1
 * (trap_load_return), as a JIT's handler sends the pc to a stub of its own.
 * For the runtime stand-ins of the tests and of bench/runtimes.
 */
#ifndef PM_TESTS_TRAP_LOAD_H
#define PM_TESTS_TRAP_LOAD_H

#include <stdint.h>
#include <ucontext.h>

#if defined(__x86_64__)
__asm__(".text\n.globl trap_load\n.type trap_load,@function\ntrap_load:\n"
        ".cfi_startproc\n\tmovl (%rdi), %eax\n\tret\n.cfi_endproc\n.size trap_load, .-trap_load\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl trap_load\n.type trap_load,%function\ntrap_load:\n"
        ".cfi_startproc\n\tldr w0, [x0]\n\tret\n.cfi_endproc\n.size trap_load, .-trap_load\n");
#endif
int trap_load(const volatile int *p);

/* Make the faulting trap_load return -1 when the handler returns. */
static inline void
trap_load_return(ucontext_t *uc)
{
#if defined(__x86_64__)
	greg_t *r = uc->uc_mcontext.gregs;
	r[REG_RIP] = *(greg_t *)r[REG_RSP];
	r[REG_RSP] += 8;
	r[REG_RAX] = -1;
#elif defined(__aarch64__)
	uc->uc_mcontext.pc = uc->uc_mcontext.regs[30];
	uc->uc_mcontext.regs[0] = (uint64_t)-1;
#endif
}

#endif
