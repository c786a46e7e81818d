/*
 * swaplib.c — the library tests/system/test_core_privsep.py has a process
 * load and crash in, built twice: the user's copy, whose crashing
 * function (static: named in .symtab alone, so only the library's file
 * names it) is swap_user_frame, and root's (-DROOT_COPY), the same code
 * under another name, swap_root_frame (and so another build id).
 */
#ifdef ROOT_COPY
#define FRAME swap_root_frame
#else
#define FRAME swap_user_frame
#endif

static __attribute__((noinline)) void
FRAME(volatile int *p)
{
	*p = 1;
	__asm__ volatile("" ::: "memory");
}

void
swap_enter(void)
{
	FRAME((volatile int *)0);
	__asm__ volatile("" ::: "memory");
}
