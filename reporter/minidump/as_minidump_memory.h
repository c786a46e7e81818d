/*
 * as_minidump_memory.h — AS-SAFE: the memory a minidump keeps
 * (as_minidump_memory.c): which ranges, their bytes, the MemoryList.
 */
#ifndef PM_REPORTER_AS_MINIDUMP_MEMORY_H
#define PM_REPORTER_AS_MINIDUMP_MEMORY_H

#include "as_minidump_stream.h"

void as_md_memory_plan(pm_md_writer *w);
void as_md_memory_bytes(pm_md_writer *w);
void as_md_memory_list(pm_md_writer *w);
/* The memory descriptor of a thread's stack (zero size when it was not captured). */
void as_md_stack_descriptor(const pm_md_writer *w, uint64_t sp, uint8_t out[PM_MD_MEMORY_DESC_SIZE]);

#endif
