/*
 * crash_clock.h — how long postmortem takes from a fault to a finished
 * report, measured inside the crashing process: CLOCK_MONOTONIC just before
 * the faulting store, and again in postmortem's on_crash callback, which
 * runs once both files are written, renamed and durable (docs/architecture.md,
 * "What is durable when").
 */
#ifndef PM_BENCH_CRASH_CLOCK_H
#define PM_BENCH_CRASH_CLOCK_H

#include <stdint.h>

/* pm_install (reports in $POSTMORTEM_DIR) with a callback that prints
 * "<ns from the fault to the callback> <1 if both files were written>"
 * then the handler's phases in ns (pm_crash_phases, in its order: freeze
 * images threads symbols write fsync minidump upload) on stdout.  Reports hold
 * max_threads threads (0: postmortem's default).  On stderr, "faults TAKEN
 * RESIDENT": the page faults the faulting thread took from the fault to the
 * callback (perf's software counter, -1 when refused) and the pages made
 * resident for it meanwhile (getrusage's minor faults, which count pages
 * populated ahead too), then "fault_at NS": the fault's CLOCK_MONOTONIC time.  0, or -1
 * with errno set. */
int crash_clock_install(uint32_t max_threads);

/* Note the time and fault (SIGSEGV).  The argument is unused: the function
 * fits park_descend. */
void crash_clock_fault(void *unused);

#endif
