/* The crashing function overwrote its own return address with garbage:
 * the walk must stop there with a reason, without a second fault. */
#include <stdint.h>

#include "sample.h"

SAMPLE_FRAME static int
smash_return_and_crash(void)
{
	/* x86_64: the frame address is where the caller's rbp was saved,
	 * and the return address sits just above it. */
	volatile uintptr_t *ra = (volatile uintptr_t *)__builtin_frame_address(0) + 1;
	*ra = (uintptr_t)0x4141414141414141u;
	return *sample_null;
}

SAMPLE_FRAME static int
call_smasher(void)
{
	int r = smash_return_and_crash();
	SAMPLE_KEEP_FRAME();
	return r;
}

int
main(void)
{
	sample_install();
	int r = call_smasher();
	SAMPLE_KEEP_FRAME();
	return r;
}
