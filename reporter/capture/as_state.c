/*
 * as_state.c — the one global the crash path reads (see state.h).
 * Zero-initialised: nothing is installed until pm_install fills it.
 */
#include "as_memory.h"
#include "state.h"

/* In .data, right after the little the loader writes there at every start:
 * the beginning of what install writes (state.h) shares that page. */
PM_START_DATA pm_state as_g;
