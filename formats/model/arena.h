/*
 * arena.h — the bump allocator every report lives in.  Private: a report's
 * users see only the opaque pm_arena and pm_report_alloc/pm_report_strdup.
 *
 * At crash time the arena is a fixed block prepared at install (never
 * grows); readers use a heap arena that grows in chunks.  Pointers into an
 * arena stay valid until it is freed.
 */
#ifndef PM_FORMATS_ARENA_H
#define PM_FORMATS_ARENA_H

#include "postmortem-tools.h"

typedef bool pm_arena_grow_fn(pm_arena *a, size_t need);

struct pm_arena {
	char *cur;              /* next free byte */
	size_t left;            /* bytes left in the current block */
	pm_arena_grow_fn *grow; /* NULL for a fixed arena */
	void *chunks;           /* heap chunks, owned by the grow function */
	bool exhausted;         /* an allocation failed: the report is truncated */
};

/* Arena over caller memory; never grows.  AS-safe. */
void pmi_arena_init_fixed(pm_arena *a, void *mem, size_t size);
/* Arena that grows with malloc. */
void pmi_arena_init_heap(pm_arena *a);
/* n bytes aligned to `align` (a power of two), zeroed; NULL when full (or a is NULL).
 * AS-safe for fixed arenas. */
void *pmi_arena_alloc(pm_arena *a, size_t n, size_t align);
/* A copy of src[0..n) aligned to `align`; NULL when full.  AS-safe for fixed arenas. */
void *pmi_arena_copy(pm_arena *a, const void *src, size_t n, size_t align);
/* Copy of s[0..n) with a NUL; NULL when full.  AS-safe for fixed arenas. */
const char *pmi_arena_strndup(pm_arena *a, const char *s, size_t n);
/* Copy of a NUL-terminated string (NULL stays NULL).  AS-safe for fixed arenas. */
const char *pmi_arena_strdup(pm_arena *a, const char *s);
/* An allocation failed (or there is no arena): what was built is truncated.  AS-safe. */
bool pmi_arena_exhausted(const pm_arena *a);
/* Release heap chunks and empty the arena (a fixed arena's block stays the caller's). */
void pmi_arena_free(pm_arena *a);

#endif
