/* Integer division by zero: SIGFPE, FPE_INTDIV on x86_64. */
#include "sample.h"

SAMPLE_FRAME static int
crash_divide(int a)
{
	return a / sample_zero;
}

int
main(void)
{
	sample_install();
	int r = crash_divide(42);
	SAMPLE_KEEP_FRAME();
	return r;
}
