/* An undefined instruction written out: SIGILL. */
#include "sample.h"

SAMPLE_FRAME static void
crash_ud2(void)
{
#if defined(__x86_64__)
	__asm__ volatile("ud2");
#else
	__asm__ volatile(".inst 0x00000000"); /* permanently undefined on arm64 */
#endif
}

int
main(void)
{
	sample_install();
	crash_ud2();
	SAMPLE_KEEP_FRAME();
	return 0;
}
