/*
 * unwritten.c — a core the kernel takes minutes to walk and never writes:
 * 1 TiB mapped MAP_NORESERVE, one page touched (a few KiB resident), then a
 * NULL dereference.  The kernel's dump goes through the mapping a page at
 * a time, writing nothing until its end (the holes are written as zeros
 * once a page follows them), so the dumping process stays in its dump,
 * counted against kernel.core_pipe_limit, long after its handler has
 * closed the core's pipe (tests/system/test_core_attack.py).
 */
#include <stddef.h>
#include <sys/mman.h>

int
main(void)
{
	char *p = mmap(NULL, 1ull << 40, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	p[0] = 1;
	*(volatile int *)0 = 1;
	return 0;
}
