/*
 * fault_counter.h — the page faults the calling thread takes from now on:
 * perf's software counter, which counts the faults taken (each a trap into
 * the kernel), not the pages populated ahead with MADV_POPULATE_WRITE
 * (getrusage's minor faults count both).  Shared by crash_clock.c and the
 * crash_faults test's program.
 */
#ifndef PM_BENCH_FAULT_COUNTER_H
#define PM_BENCH_FAULT_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/* A descriptor whose read(2) gives the count as a uint64_t, -1 when refused.
 * kernel_too: also the faults in the kernel's copies to user memory, where
 * allowed (an unprivileged user may count user mode only: perf_event_paranoid 2). */
int fault_counter_open(bool kernel_too);

#endif
