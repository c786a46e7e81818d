/*
 * cxx_throw.h — what the __cxa_throw hook (cxx_throw.c, at throw time)
 * leaves for the crash path (as_cxx_exception.c): per thread, the last C++
 * exception it threw.
 */
#ifndef PM_REPORTER_CXX_THROW_H
#define PM_REPORTER_CXX_THROW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum {
	PM_CXX_SLOTS = 64,         /* threads whose last throw is kept */
	PM_CXX_PROBE = 8,          /* slots a thread may take past its hash */
	PM_CXX_FRAMES = 32,        /* throw-site frames kept: the walk is most of a throw's cost */
	PM_CXX_TYPE_MAX = 160,     /* the mangled type name, NUL included */
	PM_CXX_WHAT_MAX = 512,     /* what(), NUL included; longer is cut */
};

typedef struct pm_cxx_throw {
	_Atomic int32_t tid;       /* the thread whose last throw this is; 0: free */
	_Atomic uint32_t seq;      /* odd while the thread writes */
	uint32_t frame_count;
	bool has_what;
	bool what_cut;
	uintptr_t frames[PM_CXX_FRAMES]; /* return addresses; [0] is the hook itself */
	char type[PM_CXX_TYPE_MAX];
	char what[PM_CXX_WHAT_MAX];
} pm_cxx_throw;

/* Defined by the crash path (as_cxx_exception.c), which imports nothing. */
extern pm_cxx_throw as_cxx_throws[PM_CXX_SLOTS];
/* The hook's code, [lo, hi): a crashed thread whose stack runs through it
 * died of that exception (it never left __cxa_throw). */
extern _Atomic uintptr_t as_cxx_hook_lo, as_cxx_hook_hi;

#endif
