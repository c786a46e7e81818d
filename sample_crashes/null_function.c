/* A call through a NULL function pointer: pc 0, SIGSEGV. */
#include "sample.h"

SAMPLE_FRAME static void
crash_call_null(void)
{
	sample_null_fn();
	SAMPLE_KEEP_FRAME();
}

int
main(void)
{
	sample_install();
	crash_call_null();
	SAMPLE_KEEP_FRAME();
	return 0;
}
