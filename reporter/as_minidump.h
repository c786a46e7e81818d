/*
 * as_minidump.h — AS-SAFE: the report as a Breakpad/Crashpad minidump
 * (<id>.dmp), streamed from the model, the memory map and the threads'
 * stacks read through the fault-free reader.  No allocation: the ranges
 * table and the chunk buffer were prepared at install.
 *
 * File layout: header, directory, every captured memory range's bytes,
 * then the streams, which point back at those bytes.  The streams' sizes
 * are known only once written, so the header and the directory are written
 * last, over their placeholders (the one seek).  A stream's size covers its
 * fixed records only; what they point at (contexts, strings) follows it.
 */
#ifndef PM_REPORTER_AS_MINIDUMP_H
#define PM_REPORTER_AS_MINIDUMP_H

#include "minidump.h"
#include "as_capture_ctx.h"

enum {
	PM_MD_MAX_STREAMS = 16,
	/* Stack from the page of sp up: Breakpad's 32 KiB (linux_dumper.cc). */
	PM_MD_STACK_CAP = 32 * 1024,
	/* Around the crashed thread's pointers and the faulting address:
	 * 128 bytes before, 512 in all, as Crashpad's capture_memory.cc. */
	PM_MD_AROUND_BEFORE = 128,
	PM_MD_AROUND_SIZE = 512,
	/* Values below this are small integers, not pointers. */
	PM_MD_MIN_POINTER = 0x10000,
	/* Ranges beside the stacks: pc, fault address, registers. */
	PM_MD_EXTRA_RANGES = 64,
};

/* One captured memory range; rva is where its bytes sit in the file. */
typedef struct pm_md_range {
	uint64_t start, end;
	uint32_t rva;
} pm_md_range;

typedef struct pm_md_writer {
	pm_out *o;
	const pm_report *r;
	const pm_md_context_layout *ctx;  /* NULL: no thread has registers we can encode */
	pm_md_range *ranges;
	size_t range_count, range_cap;
	uint8_t dir[PM_MD_MAX_STREAMS][PM_MD_DIR_ENTRY_SIZE];
	uint32_t dir_count;
	uint32_t stream_type;
	uint64_t stream_start;
	char *chunk;                      /* memory and file reads */
	size_t chunk_cap;
	const pm_as_images *images;       /* the maps: which memory is there to copy */
	const pm_facts *facts;
	bool environ;                     /* keep the environment (else blanked) */
} pm_md_writer;

/* The whole minidump of r into o, whose fd must be a regular file (seekable). */
pm_err as_minidump(const as_capture_ctx *c, pm_out *o);

/* as_minidump.c: stream bookkeeping. */
void as_md_stream_begin(pm_md_writer *w, uint32_t type);
void as_md_stream_end(pm_md_writer *w);
/* The file offset of the next byte written. */
uint32_t as_md_rva(const pm_md_writer *w);
void as_md_put_location(uint8_t *p, uint32_t size, uint32_t rva);
/* A thread's registers as context bytes in w->chunk; false when it has none we encode. */
bool as_md_thread_context(pm_md_writer *w, const pm_thread *t);
/* The stack pointer of the context as_md_thread_context last built. */
uint64_t as_md_context_sp(const pm_md_writer *w);

/* as_minidump_memory.c: which ranges, their bytes, the MemoryList. */
void as_md_memory_plan(pm_md_writer *w);
void as_md_memory_bytes(pm_md_writer *w);
void as_md_memory_list(pm_md_writer *w);
/* The memory descriptor of a thread's stack (zero size when it was not captured). */
void as_md_stack_descriptor(const pm_md_writer *w, uint64_t sp, uint8_t out[PM_MD_MEMORY_DESC_SIZE]);

/* as_minidump_threads.c */
void as_md_thread_list(pm_md_writer *w);
void as_md_exception(pm_md_writer *w);
void as_md_thread_names(pm_md_writer *w);

/* as_minidump_info.c */
void as_md_system_info(pm_md_writer *w);
void as_md_misc_info(pm_md_writer *w);
void as_md_module_list(pm_md_writer *w);

/* as_minidump_proc.c: Breakpad's Linux streams, each a file copied as is. */
void as_md_proc_streams(pm_md_writer *w);

#endif
