/*
 * exec_chain.c — a program that crashes at the end of an exec or a fork
 * (test_run_exec.c), run under `postmortem run` unchanged, or built with
 * -DLINKED, linking libpostmortem and installing it itself first (its
 * reports say "exec-chain-linked").  argv[1]:
 *   crash          read through a NULL pointer (SIGSEGV)
 *   reexec         exec itself again (/proc/self/exe), which then crashes
 *   fork           fork: the child crashes; the parent exits 0 once it has
 *   replace        take SIGSEGV back to its default action with a raw
 *                  rt_sigaction system call (no libc), then crash
 *   late LIB       dlopen LIB, which links libpostmortem, call its
 *                  late_install (pm_install), then crash
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef LINKED
#include "postmortem.h"
#endif

int *volatile exec_chain_null;

__attribute__((noinline)) static int
exec_chain_crash(void)
{
	return *exec_chain_null;
}

static int
late(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW);
	void *sym = h ? dlsym(h, "late_install") : NULL;
	if (!sym) {
		fprintf(stderr, "exec_chain: %s\n", dlerror());
		return 3;
	}
	int (*late_install)(void);
	memcpy(&late_install, &sym, sizeof sym);
	if (late_install() != 0) {
		perror("exec_chain: late_install");
		return 4;
	}
	return exec_chain_crash();
}

int
main(int argc, char **argv)
{
#ifdef LINKED
	pm_config cfg = { .app_id = "exec-chain-linked" };
	if (pm_install(&cfg) != 0) {
		perror("exec_chain: pm_install");
		return 2;
	}
#endif
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "reexec") == 0) {
		char *again[] = { argv[0], "crash", NULL };
		execv("/proc/self/exe", again);
		perror("exec_chain: execv");
		return 3;
	}
	if (strcmp(mode, "fork") == 0) {
		pid_t pid = fork();
		if (pid == 0)
			return exec_chain_crash();
		int status;
		return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV
		               ? 0
		               : 3;
	}
	if (strcmp(mode, "replace") == 0) {
		unsigned long dfl[4] = { 0 }; /* the kernel's sigaction: SIG_DFL, no flags, empty mask */
		if (syscall(SYS_rt_sigaction, SIGSEGV, dfl, NULL, 8) != 0) {
			perror("exec_chain: rt_sigaction");
			return 3;
		}
	}
	if (strcmp(mode, "late") == 0 && argc > 2)
		return late(argv[2]);
	return exec_chain_crash();
}
