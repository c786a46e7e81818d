/*
 * lu_walk.h — libunwind's local unwinder on a signal context, for the
 * programs that compare postmortem's unwinder with it (built only with
 * -Dlibunwind=enabled).  Never on the crash path: it calls dl_iterate_phdr,
 * which takes the loader lock.
 */
#ifndef PM_BENCH_LU_WALK_H
#define PM_BENCH_LU_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

enum { LU_MORE = 1 };

/*
 * Walk from uc, the context a signal interrupted (its pc is exact, not a
 * return address), writing up to max pcs.  Returns how many; *end is 0 when
 * unw_step reached the outermost frame, LU_MORE when max was reached, else
 * libunwind's negative error code.
 */
uint32_t lu_walk(ucontext_t *uc, uint64_t *pcs, uint32_t max, int *end);

/* How a walk ended, in words, from lu_walk's *end. */
const char *lu_end_text(int end);

/* Empty libunwind's caches of what it learnt per address: the next walk
 * works like a process's first (it still caches within that walk). */
void lu_forget(void);

/* Let libunwind keep what it learns per address in its global cache (true:
 * its default unless built with per-thread caches) or not: then each frame's
 * unwind row is looked up and interpreted afresh, as postmortem's are. */
void lu_caching(bool on);

#endif
