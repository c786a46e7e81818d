/*
 * sparse.c — a 2 GiB mapping (MAP_NORESERVE, at a fixed address) of which
 * one page in each 256 MiB holds a word (0x5350415253450000 + its index),
 * then a NULL dereference: a 2 GiB core that is almost all holes.
 */
#include <stdint.h>
#include <sys/mman.h>

#define BASE 0x200000000000ull
#define SIZE (2ull << 30)
#define STEP (256ull << 20)

int
main(void)
{
	char *p = mmap((void *)BASE, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
	               MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	for (uint64_t i = 0; i < SIZE / STEP; i++)
		*(volatile uint64_t *)(p + i * STEP) = 0x5350415253450000ull + i;
	*(volatile int *)0 = 1;
	return 0;
}
