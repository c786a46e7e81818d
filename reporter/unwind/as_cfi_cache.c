/*
 * as_cfi_cache.c — AS-SAFE cache of CFI rows by pc (see as_cfi_cache.h).
 */
#include "as_cfi_cache.h"

#include <stddef.h>

#include "as_cfi_hdr.h"
#include "as_memory.h"

/* A power of two; 512 rows of about 350 bytes.  A 257-thread capture of the
 * benchmark needs about 40 distinct pcs. */
enum { CACHE_ENTRIES = 512 };

typedef struct cache_entry {
	uint64_t hdr, pc;
	pm_cfi_result result;
	pm_cfi_cie cie;          /* when PM_CFI_OK */
	pm_cfi_row row;
} cache_entry;

/*
 * Rows are found by a direct-mapped index by pc and stored in the order
 * they are computed: at the first crash every page of the cache is fresh,
 * and the first write into a fresh page costs several times the row's
 * computation (see as_mem.h), so 40 rows fill 4 pages, not 40 spread by pc.
 */
typedef struct index_slot {
	unsigned generation;     /* valid when equal to the cache's */
	uint16_t entry;
} index_slot;

struct pm_cfi_cache {
	unsigned generation;     /* of the capture under way; never 0 once cleared, so a zeroed slot is stale */
	size_t used;             /* entries handed out in this capture */
	index_slot index[CACHE_ENTRIES];
	cache_entry entries[CACHE_ENTRIES];
};

size_t
as_cfi_cache_size(void)
{
	return sizeof(pm_cfi_cache);
}

void
as_cfi_cache_clear(pm_cfi_cache *c)
{
	if (!c)
		return;
	c->used = 0;
	/* After 2^32 captures the generation comes round again: start afresh. */
	if (++c->generation == 0) {
		for (size_t i = 0; i < CACHE_ENTRIES; i++)
			c->index[i].generation = 0;
		c->generation = 1;
	}
}

void
as_cfi_cache_populate(pm_cfi_cache *c, size_t rows)
{
	as_sys_populate(c, offsetof(pm_cfi_cache, entries) + (rows < CACHE_ENTRIES ? rows : CACHE_ENTRIES) *
	                                                      sizeof c->entries[0]);
}

/* The entry for pc's index slot: the one it holds, or a fresh one (each
 * slot takes at most one per capture, so `used` never passes the entries). */
static cache_entry *
entry_for(pm_cfi_cache *c, uint64_t hdr, uint64_t pc)
{
	uint64_t h = (pc ^ (pc >> 17) ^ hdr) * UINT64_C(0x9e3779b97f4a7c15);
	index_slot *s = &c->index[(h >> 55) & (CACHE_ENTRIES - 1)];
	if (s->generation != c->generation) {
		s->generation = c->generation;
		s->entry = (uint16_t)c->used++;
		c->entries[s->entry].hdr = 0; /* not computed yet: a table at 0 is never cached */
	}
	return &c->entries[s->entry];
}

pm_cfi_result
as_cfi_step_cached(pm_cfi_cache *c, const pm_mem *mem, uint64_t eh_frame_hdr, pm_cpu *cpu)
{
	if (!c || eh_frame_hdr == 0 || cpu->pc == 0)
		return as_cfi_step(mem, eh_frame_hdr, cpu);
	uint64_t pc = pm_cfi_lookup_pc(cpu);
	cache_entry *e = entry_for(c, eh_frame_hdr, pc);
	if (e->hdr != eh_frame_hdr || e->pc != pc) {
		pm_cfi_fde fde;
		e->hdr = eh_frame_hdr;
		e->pc = pc;
		e->result = as_cfi_find(mem, eh_frame_hdr, pc, &fde);
		if (e->result == PM_CFI_OK) {
			e->cie = fde.cie;
			e->result = as_cfi_run(mem, &fde, pc, &e->row);
		}
	}
	return e->result == PM_CFI_OK ? as_cfi_apply(mem, &e->cie, &e->row, cpu) : e->result;
}
