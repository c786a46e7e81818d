/*
 * seam.h — the capture engine over a target other than the live process
 * (reporter/memory/as_target.h, as_capture_stopped): a second
 * implementation of the memory source, for tests alone.
 *
 * A live capture reads its target through a recorder, which keeps every
 * byte that came back; the bytes, the mappings the capture saw and the
 * stopped thread's registers go to a file.  Another process reads that
 * file into a target over a buffer, which answers a read only where the
 * recorded bytes hold all of it, and captures it again.
 */
#ifndef PM_TESTS_SEAM_H
#define PM_TESTS_SEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "reporter/minidump/as_minidump.h"

/* The storage of a capture, as pm_install lays out its region. */
typedef struct seam_storage {
	pm_facts facts;
	pm_late_facts late;
	pm_capture_state state;
	pm_slot thread;           /* the one thread captured */
	unsigned generation;
	pm_mem mem;
	void *arena;
	pid_t *tids;
	pm_frame *frames;
	pm_image *model_images;
	pm_as_image *as_images;
	pm_as_map *as_maps;
	pm_mem_cache *mem_cache;
	struct pm_cfi_cache *cfi_cache;
	char *scratch, *io_buf;
	pm_md_range *md_ranges;
	pm_as_symbols symbols;
} seam_storage;

/* Storage for one thread's capture; facts for the executable at exe_path. */
void seam_storage_init(seam_storage *s, const char *exe_path);
void seam_storage_free(seam_storage *s);
/* The capture of thread tid (stopped in mc, crashed of SIGSEGV at address
 * 0) of target t, whose files go into the directory dir (open as dir_fd). */
as_capture_ctx seam_ctx(seam_storage *s, const as_target *t, pid_t tid, const mcontext_t *mc, const char *dir,
                        int dir_fd);

/* What a capture read: its bytes, where they were. */
typedef struct seam_span {
	uint64_t addr;
	size_t len;
	unsigned char *bytes;
} seam_span;

typedef struct seam_record {
	pm_mem under;             /* the recorder's source */
	seam_span *spans;         /* the recorder's in the order read; the buffer's merged, by address */
	size_t count, cap;
	seam_span *reads;         /* the buffer's: the reads recorded, in their order (no bytes) */
	size_t read_count;
	char *maps;               /* the mappings, as /proc/<pid>/maps lines */
	size_t maps_len;
	as_mapping *mappings;     /* parsed from maps */
	size_t mapping_count;
	pid_t pid, tid;
	mcontext_t mc;
} seam_record;

/* A target that reads through `under` and keeps what it read, with the
 * mappings of maps (its text kept) and no /proc directory. */
as_target seam_recorder(seam_record *r, const pm_mem *under, const char *maps, size_t maps_len);
/* r to a file, and back; false (errno) when it cannot be written or read. */
bool seam_save(const seam_record *r, const char *path);
bool seam_load(seam_record *r, const char *path);
/* A target over what r recorded (its spans merged), with no /proc directory. */
as_target seam_buffer(seam_record *r);
void seam_record_free(seam_record *r);

#endif
