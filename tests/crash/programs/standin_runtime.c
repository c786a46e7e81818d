/*
 * A stand-in for a language runtime that takes SIGSEGV on purpose, as the
 * JVM (null checks, safepoint polls), V8 (wasm bounds) and Mono do: it owns
 * a page nothing may touch (a poll page), resolves every fault on it, then
 * meets a fault it does not own and gives up on it.
 *
 *   standin_runtime RESOLVE GIVEUP [THREADS]
 *
 * RESOLVE, how its handler resolves the faults on its page (50 per thread,
 * on THREADS threads at once, 1 by default), as real runtimes do:
 *   longjmp     siglongjmp out of the handler
 *   context     change the context and return: the faulting load returns -1
 *               (a JIT's handler sends the pc to its own stub)
 *   setcontext  switch to a context saved before the fault (another stack)
 * GIVEUP, what it does with the fault it does not own (standin_crash, at 0x40):
 *   none        there is none: exit 0
 *   default     put SIG_DFL back and return (Rust's handler)
 *   reraise     put SIG_DFL back and raise the signal again (node's)
 *   abort       call abort() (the JVM's, after its hs_err file)
 *   exit        call _exit(7)
 *   crash       fault itself, in the handler
 *   hang        never return
 *   loop        return without fixing anything: the fault comes back
 *
 * Built twice: standin_runtime runs under `postmortem run` (its handler is
 * installed after postmortem's, and recorded by the preload library);
 * standin_runtime_linked links libpostmortem and installs its handler
 * before pm_install.  Prints "resolved N" when its faults are done.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef LINKED
#include "postmortem.h"
#endif

enum { FAULTS = 50 };

/* int standin_load(const volatile int *p): one load, at its first
 * instruction, so that a handler can return from it by hand. */
#if defined(__x86_64__)
__asm__(".text\n.globl standin_load\n.type standin_load,@function\nstandin_load:\n"
        ".cfi_startproc\n\tmovl (%rdi), %eax\n\tret\n.cfi_endproc\n.size standin_load, .-standin_load\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl standin_load\n.type standin_load,%function\nstandin_load:\n"
        ".cfi_startproc\n\tldr w0, [x0]\n\tret\n.cfi_endproc\n.size standin_load, .-standin_load\n");
#endif
int standin_load(const volatile int *p);

static char *page;
/* Addresses nothing is mapped at, through a volatile pointer: no warning. */
static volatile int *volatile unknown = (volatile int *)0x40, *volatile in_handler = (volatile int *)8;
static const char *resolve, *giveup;
static _Thread_local sigjmp_buf jump_back;
static _Thread_local ucontext_t switch_back;
static _Thread_local volatile int switched;
static atomic_int resolved;

/* Return -1 from standin_load, as a JIT's handler sends the pc to a stub. */
static void
return_from_load(ucontext_t *uc)
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

static void
give_up(int sig)
{
	if (strcmp(giveup, "default") == 0) {
		signal(sig, SIG_DFL);
	} else if (strcmp(giveup, "reraise") == 0) {
		signal(sig, SIG_DFL);
		raise(sig);
	} else if (strcmp(giveup, "abort") == 0) {
		abort();
	} else if (strcmp(giveup, "exit") == 0) {
		_exit(7);
	} else if (strcmp(giveup, "crash") == 0) {
		*in_handler = 1;
	} else if (strcmp(giveup, "hang") == 0) {
		for (;;)
			pause();
	}
	/* "loop": nothing fixed, the same fault comes back */
}

static void
handler(int sig, siginfo_t *info, void *uctx)
{
	char *at = info->si_addr;
	if (at < page || at >= page + 4096) {
		give_up(sig);
		return;
	}
	atomic_fetch_add(&resolved, 1);
	if (strcmp(resolve, "longjmp") == 0)
		siglongjmp(jump_back, 1);
	else if (strcmp(resolve, "setcontext") == 0)
		setcontext(&switch_back);
	else
		return_from_load(uctx);
}

static int
fault_once(void)
{
	if (strcmp(resolve, "longjmp") == 0)
		return sigsetjmp(jump_back, 1) ? -1 : standin_load((int *)page);
	if (strcmp(resolve, "setcontext") == 0) {
		switched = 0;
		getcontext(&switch_back);
		if (switched++)
			return -1;
		return standin_load((int *)page);
	}
	return standin_load((int *)page);
}

static void *
faults(void *arg)
{
	(void)arg;
	for (int i = 0; i < FAULTS; i++)
		if (fault_once() != -1)
			abort();
	return NULL;
}

__attribute__((noinline)) static int
standin_crash(void)
{
	return *unknown;
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	resolve = argv[1];
	giveup = argv[2];
	int threads = argc > 3 ? atoi(argv[3]) : 1;
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	/* A handler that may fault itself runs with its signal deliverable (as
	 * faulthandler's does): blocked, the kernel would end the process. */
	sa.sa_flags = SA_SIGINFO | (strcmp(giveup, "crash") == 0 ? SA_NODEFER : 0);
	if (page == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL) != 0)
		return 2;
#ifdef LINKED
	if (pm_install(NULL) != 0)
		return 2;
#endif
	pthread_t t[64];
	if (threads < 1 || threads > 64)
		return 2;
	for (int k = 1; k < threads; k++)
		if (pthread_create(&t[k], NULL, faults, NULL) != 0)
			return 2;
	faults(NULL);
	for (int k = 1; k < threads; k++)
		pthread_join(t[k], NULL);
	printf("resolved %d\n", atomic_load(&resolved));
	fflush(stdout);
	if (strcmp(giveup, "none") == 0)
		return 0;
	return standin_crash();
}
