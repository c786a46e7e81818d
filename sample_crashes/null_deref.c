/* A read through a NULL pointer: SIGSEGV, SEGV_MAPERR at 0. */
#include "sample.h"

SAMPLE_FRAME static int
crash_null_deref(void)
{
	return *sample_null;
}

SAMPLE_FRAME static int
call_null_deref(void)
{
	int v = crash_null_deref();
	SAMPLE_KEEP_FRAME();
	return v + 1;
}

int
main(void)
{
	sample_install();
	return call_null_deref();
}
