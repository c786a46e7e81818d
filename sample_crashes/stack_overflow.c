/* Unbounded recursion on the main thread: SIGSEGV in the guard page. */
#include "sample.h"

SAMPLE_FRAME static int
crash_recurse(volatile int depth)
{
	volatile char pad[512];
	pad[0] = (char)depth;
	int r = crash_recurse(depth + 1) + pad[0];
	SAMPLE_KEEP_FRAME();
	return r;
}

int
main(void)
{
	sample_install();
	return crash_recurse(0);
}
