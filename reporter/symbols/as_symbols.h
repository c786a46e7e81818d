/*
 * as_symbols.h — the door of reporter/symbols: AS-SAFE symbol names for
 * frames, in the handler.
 *
 * For each frame in an image: the nearest preceding function symbol whose
 * extent (st_size) contains the address, from the image's .dynsym (mapped,
 * read through pm_mem) or its .symtab (read from the file, or from a separate
 * debug file found by build id under /usr/lib/debug, with pread into memory
 * reserved at install).  An address outside every symbol keeps no name, so
 * the report prints "0xBASE + offset" rather than an unrelated neighbour.
 */
#ifndef PM_REPORTER_AS_SYMBOLS_H
#define PM_REPORTER_AS_SYMBOLS_H

#include "as_images.h"
#include "as_memory.h"
#include "postmortem-tools.h"

/* The working memory: one reservation, whose own header (struct pm_sym_work)
 * is written at its first use, so that a process that never crashes touches
 * no page of it.  The handle lives with its owner (as_g, which pm_install
 * writes anyway). */
typedef struct pm_as_symbols {
	struct pm_sym_work *work; /* NULL: no working memory */
	size_t bytes;             /* the whole reservation */
} pm_as_symbols;

/* Reserve `bytes` of working memory (mmap, untouched until a crash).  NOT AS-safe.
 * On failure the handle's work is NULL. */
pm_as_symbols pmi_as_symbols_create(size_t bytes);
/* Release it (a handle without working memory too).  NOT AS-safe. */
void pmi_as_symbols_destroy(pm_as_symbols *s);

/*
 * Name every frame of every thread (and the last exception backtrace) of r
 * that lies in a known image and has no symbol yet: symbol (copied into
 * r's arena) and symbol_offset.  Return addresses (frames after the first,
 * and any not marked as the exact pc) are looked up at address - 1.
 */
void as_symbolize(const pm_as_symbols *s, pm_report *r, const pm_as_images *im, const pm_mem *mem);

#endif
