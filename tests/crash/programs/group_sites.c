/*
 * group_sites.c — crash sites for crash groups (tests/crash/test_groups.c):
 * one program, several places it can die, chosen by argv.
 *
 *   crash_group_sites a [OFFSET]   a NULL dereference + OFFSET ints in site_a
 *   crash_group_sites b            the same in site_b
 *   crash_group_sites abort        fail_hard calls abort()
 *   crash_group_sites assert       check_invariant's assert() fails
 *   crash_group_sites site N       the NULL dereference in site_N, one of 150
 *
 * Built twice (tests/crash/programs/rebuilt/): the second build puts a
 * 4 KiB pad before these functions and links group_sites_main.c first, so
 * that every function of it lands at another address.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "group_sites.h"

#ifdef PM_GROUP_PAD
/* Moves everything after it. */
__attribute__((used)) void
group_pad(void)
{
	__asm__ volatile(".skip 4096, 0x90");
}
#endif

int *volatile group_null;

GROUP_FRAME void
site_a(int offset)
{
	group_null[offset] = 1;
	GROUP_KEEP_FRAME();
}

GROUP_FRAME void
site_b(void)
{
	group_null[3] = 2;
	GROUP_KEEP_FRAME();
}

GROUP_FRAME void
fail_hard(void)
{
	abort();
}

GROUP_FRAME void
check_invariant(int n)
{
	assert(n > 1000);
	GROUP_KEEP_FRAME();
}

/* site_0 ... site_149: one function, and so one crash group, each. */
#define SITE(n)                                                                                                   \
	GROUP_FRAME static void site_##n(void)                                                                    \
	{                                                                                                         \
		group_null[n] = n;                                                                                \
		GROUP_KEEP_FRAME();                                                                               \
	}
#define SITES10(d) SITE(d##0) SITE(d##1) SITE(d##2) SITE(d##3) SITE(d##4) SITE(d##5) SITE(d##6) SITE(d##7) \
	SITE(d##8) SITE(d##9)
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9)
SITES10(1) SITES10(2) SITES10(3) SITES10(4) SITES10(5) SITES10(6) SITES10(7) SITES10(8) SITES10(9)
SITES10(10) SITES10(11) SITES10(12) SITES10(13) SITES10(14)

#define REF(n) site_##n,
#define REFS10(d) REF(d##0) REF(d##1) REF(d##2) REF(d##3) REF(d##4) REF(d##5) REF(d##6) REF(d##7) REF(d##8) \
	REF(d##9)
static void (*const sites[GROUP_SITES])(void) = {
	REF(0) REF(1) REF(2) REF(3) REF(4) REF(5) REF(6) REF(7) REF(8) REF(9)
	REFS10(1) REFS10(2) REFS10(3) REFS10(4) REFS10(5) REFS10(6) REFS10(7) REFS10(8) REFS10(9)
	REFS10(10) REFS10(11) REFS10(12) REFS10(13) REFS10(14)
};

GROUP_FRAME void
site_n(int n)
{
	if (n >= 0 && n < GROUP_SITES)
		sites[n]();
	GROUP_KEEP_FRAME();
}
