/*
 * start_data.h — where a static that pm_install writes belongs.
 *
 * The loader writes libpostmortem's .data page at every start (its own
 * relocations, and the zeroing of .bss where it begins in that page), so a
 * static placed there costs a process nothing more.  One in .bss that
 * install writes faults in a fresh page of its own unless something else on
 * that page was written already: 10–20 µs each on a virtual machine
 * (docs/benchmarks.md, issue 13).  Zero-initialised all the same.
 */
#ifndef PM_REPORTER_START_DATA_H
#define PM_REPORTER_START_DATA_H

#define PM_START_DATA __attribute__((section(".data")))

#endif
