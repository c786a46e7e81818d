/* A breakpoint instruction with no debugger attached: SIGTRAP. */
#include "sample.h"

SAMPLE_FRAME static void
crash_breakpoint(void)
{
#if defined(__x86_64__)
	__asm__ volatile("int3");
#else
	__asm__ volatile("brk #0xf000");
#endif
}

int
main(void)
{
	sample_install();
	crash_breakpoint();
	SAMPLE_KEEP_FRAME();
	return 0;
}
