/*
 * crash_static.c — built -static: nothing can be preloaded into it.  It
 * dereferences NULL three calls deep.
 */
static __attribute__((noinline)) void
leaf(volatile int *p)
{
	*p = 1;
}

static __attribute__((noinline)) void
middle(volatile int *p)
{
	leaf(p);
	__asm__ volatile("" ::: "memory");
}

int
main(void)
{
	middle((volatile int *)0);
	return 0;
}
