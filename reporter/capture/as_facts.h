/*
 * as_facts.h — AS-SAFE: the process facts a report shows but catching a
 * crash does not need, read at the first capture instead of at pm_install
 * (what an app pays at start, issue 13).
 */
#ifndef PM_REPORTER_AS_FACTS_H
#define PM_REPORTER_AS_FACTS_H

#include <stddef.h>

#include "state.h"

/* Fill the OS and kernel names, the hardware model, and target t's
 * environment range and launch time (from its /proc directory), once per
 * process: the first capture reads them (through scratch), later ones find
 * them read.  A capture that finds another one reading them goes on with
 * what is there. */
void as_facts_read(pm_facts *f, const as_target *t, char *scratch, size_t scratch_cap);

/* The same for what only the minidump shows (the CPU count), read by the
 * first minidump written. */
void as_facts_read_minidump(pm_facts *f, char *scratch, size_t scratch_cap);

#endif
