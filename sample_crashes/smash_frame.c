/* The saved frame area (saved registers, return address, part of the
 * caller's frame) is overwritten with a memset before the fault, as a
 * runaway buffer write would: the walk must stop with a reason.  The fill
 * byte is $SMASH_BYTE (default 0xa5): 0 leaves a null return address, which
 * must not pass for the end of the stack. */
#include <stdlib.h>
#include <string.h>

#include "sample.h"

SAMPLE_FRAME static int
smash_frame_and_crash(int byte)
{
	char *frame = __builtin_frame_address(0);
	/* Hide the pointer's origin, or the compiler may reason about the write. */
	__asm__ volatile("" : "+r"(frame));
	memset(frame, byte, 128);
	return *sample_null;
}

SAMPLE_FRAME static int
call_smasher(int byte)
{
	int r = smash_frame_and_crash(byte);
	SAMPLE_KEEP_FRAME();
	return r;
}

int
main(void)
{
	const char *byte = getenv("SMASH_BYTE");
	sample_install();
	int r = call_smasher(byte ? (int)strtol(byte, NULL, 0) : 0xa5);
	SAMPLE_KEEP_FRAME();
	return r;
}
