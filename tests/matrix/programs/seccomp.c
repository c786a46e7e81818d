/*
 * Seccomp filters around pm_install.  "before" and "after": a filter that
 * refuses process_vm_readv (EPERM), set before or after pm_install, then a
 * crash two calls deep — the report must still walk the whole stack (issue
 * 12, item 6).  "trap": a filter that turns getpriority (a call the handler
 * never makes) into SIGSYS.  "trap_handler": the same for getppid, which
 * the handler makes too (the report's parent pid): the minimal report.
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "postmortem.h"
#include "sample.h"

static int
filter(long nr, unsigned action)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof code / sizeof code[0], code };
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0;
}

SAMPLE_FRAME static int
crash_under_seccomp(void)
{
	return *sample_null;
}

SAMPLE_FRAME static int
seccomp_caller(void)
{
	int r = crash_under_seccomp();
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

SAMPLE_FRAME static int
crash_by_sigsys(long nr)
{
	return (int)syscall(nr, 0, 0);
}

int
main(int argc, char **argv)
{
	const char *when = argc > 1 ? argv[1] : "";
	unsigned deny = SECCOMP_RET_ERRNO | 1; /* EPERM */
	if (strcmp(when, "before") == 0 && filter(SYS_process_vm_readv, deny) != 0)
		return 3;
	if (pm_install(NULL) != 0)
		return 2;
	if (strcmp(when, "after") == 0 && filter(SYS_process_vm_readv, deny) != 0)
		return 3;
	if (strncmp(when, "trap", 4) == 0) {
		long nr = strcmp(when, "trap_handler") == 0 ? SYS_getppid : SYS_getpriority;
		if (filter(nr, SECCOMP_RET_TRAP) != 0)
			return 3;
		return crash_by_sigsys(nr);
	}
	return seccomp_caller();
}
