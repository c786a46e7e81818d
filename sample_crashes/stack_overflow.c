/* Unbounded recursion on the main thread: SIGSEGV in the guard page. */
#include "sample.h"

SAMPLE_FRAME static int
crash_recurse(volatile int depth)
{
	volatile char pad[512];
	pad[0] = (char)depth;
	/* sample_zero is always 0; testing it keeps the compiler from calling the
	 * recursion infinite (-Winfinite-recursion) without changing what runs. */
	int r = (sample_zero == 0 ? crash_recurse(depth + 1) : 0) + pad[0];
	SAMPLE_KEEP_FRAME();
	return r;
}

int
main(void)
{
	sample_install();
	return crash_recurse(0);
}
