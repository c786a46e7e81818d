/* __builtin_trap(): ud2 on x86_64, SIGILL (ILL_ILLOPN). */
#include "sample.h"

SAMPLE_FRAME static void
crash_builtin_trap(void)
{
	__builtin_trap();
}

int
main(void)
{
	sample_install();
	crash_builtin_trap();
	SAMPLE_KEEP_FRAME();
	return 0;
}
