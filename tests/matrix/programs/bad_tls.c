/*
 * The app corrupts its thread pointer (the FS base on x86_64), then
 * crashes: the handler's first errno access would fault on it.  The report
 * must still be written and the process die of SIGSEGV.
 */
#include <asm/prctl.h>
#include <sys/syscall.h>

#include "postmortem.h"
#include "sample.h"

SAMPLE_FRAME static int
crash_with_bad_tls(void)
{
	/* Straight to the kernel: libc's wrapper would touch TLS on its way out. */
	long ret;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(SYS_arch_prctl), "D"(ARCH_SET_FS), "S"(0x1000)
	                 : "rcx", "r11", "memory");
	return *sample_null + (int)ret;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	return crash_with_bad_tls();
}
