/* group_sites.h — what group_sites.c and its main share. */
#ifndef PM_TESTS_GROUP_SITES_H
#define PM_TESTS_GROUP_SITES_H

#define GROUP_SITES 150
/* Never inlined, cloned or turned into a tail call: each site is a frame of its own. */
#if defined(__clang__)
#define GROUP_FRAME __attribute__((noinline))
#else
#define GROUP_FRAME __attribute__((noinline, noclone))
#endif
#define GROUP_KEEP_FRAME() __asm__ volatile("" ::: "memory")

void site_a(int offset);
void site_b(void);
void fail_hard(void);
void check_invariant(int n);
void site_n(int n);

#endif
