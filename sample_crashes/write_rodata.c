/* A write to a read-only page: SIGSEGV, SEGV_ACCERR. */
#include "sample.h"

static const char message[] = "read only";

SAMPLE_FRAME static void
crash_write_rodata(char *volatile p)
{
	p[0] = 'X';
}

int
main(void)
{
	sample_install();
	crash_write_rodata((char *)message);
	SAMPLE_KEEP_FRAME();
	return 0;
}
