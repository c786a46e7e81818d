/* abort(): SIGABRT raised by the process itself (through libc, no frame pointers). */
#include <stdlib.h>

#include "sample.h"

SAMPLE_FRAME static void
crash_abort(void)
{
	abort();
}

int
main(void)
{
	sample_install();
	crash_abort();
	return 0;
}
