/*
 * as_minidump_stream.h — AS-SAFE: what every stream of a minidump is
 * written with (as_minidump_stream.c): the writer, the memory ranges it
 * keeps, and the bookkeeping of the directory each stream adds to.
 */
#ifndef PM_REPORTER_AS_MINIDUMP_STREAM_H
#define PM_REPORTER_AS_MINIDUMP_STREAM_H

#include "as_capture.h"
#include "minidump.h"

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
	const as_target *target;          /* whose memory and /proc files are copied */
	const pm_as_images *images;       /* its maps: which memory is there to copy */
	const pm_facts *facts;
	bool environ;                     /* keep the environment (else blanked) */
} pm_md_writer;

void as_md_stream_begin(pm_md_writer *w, uint32_t type);
void as_md_stream_end(pm_md_writer *w);
/* The file offset of the next byte written. */
uint32_t as_md_rva(const pm_md_writer *w);
void as_md_put_location(uint8_t *p, uint32_t size, uint32_t rva);
/* A thread's registers as context bytes in w->chunk; false when it has none we encode. */
bool as_md_thread_context(pm_md_writer *w, const pm_thread *t);
/* The stack pointer of the context as_md_thread_context last built. */
uint64_t as_md_context_sp(const pm_md_writer *w);

#endif
