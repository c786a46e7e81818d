/*
 * symb_macho.c — a macOS program the dSYM tests build for arm64 and x86_64
 * with Debian's LLVM (never run: there is no Mach-O loader here).  The tests
 * write Apple reports whose frames point into it and symbolicate them with
 * its dSYM.  Freestanding: no SDK, entry point _start.  OTHER_BUILD gives the
 * same program another UUID.
 */
static inline __attribute__((always_inline)) int
macho_inner(volatile int *p)
{
	return *p * 3; /* LINE:inner */
}

static inline __attribute__((always_inline)) int
macho_middle(volatile int *p)
{
	return macho_inner(p) + 1; /* LINE:middle */
}

__attribute__((noinline)) int
macho_leaf(volatile int *p)
{
	return macho_middle(p) + 2; /* LINE:leaf */
}

int
start(void)
{
	volatile int v = 2;
#ifdef OTHER_BUILD
	v += 40;
#endif
	return macho_leaf(&v) + 5; /* LINE:call */
}
