/*
 * as_state.c — the one global the crash path reads (see state.h).
 * Zero-initialised: nothing is installed until pm_install fills it.
 */
#include "state.h"

pm_state as_g;
