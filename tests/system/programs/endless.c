/*
 * endless.c — the core that does not end: 64 TiB mapped MAP_NORESERVE, a
 * page touched in each GiB (256 MiB resident), then a NULL dereference.
 * Through a pipe the kernel writes every page of the mapping, zeros
 * included: 70 TB, hours at the speed a reader takes it.  It prints
 * CLOCK_MONOTONIC in ns just before the fault (bench/core_handler.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#define SIZE (64ull << 40)
#define STEP (1ull << 30)

int
main(void)
{
	char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("endless: mmap");
		return 2;
	}
	for (uint64_t i = 0; i < SIZE / STEP; i++)
		p[i * STEP] = 1;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000 + now.tv_nsec);
	fflush(stdout);
	*(volatile int *)0 = 1;
	return 0;
}
