/*
 * as_cfi_cache.c — AS-SAFE cache of CFI rows by pc (see as_cfi_cache.h).
 */
#include "as_cfi_cache.h"

#include "as_cfi_internal.h"

/* A power of two; 512 rows of about 350 bytes.  A 257-thread capture of the
 * benchmark needs about 40 distinct pcs. */
enum { CACHE_ENTRIES = 512 };

typedef struct cache_entry {
	uint64_t hdr, pc;
	unsigned generation;     /* valid when equal to the cache's */
	pm_cfi_result result;
	pm_cfi_cie cie;          /* when PM_CFI_OK */
	pm_cfi_row row;
} cache_entry;

struct pm_cfi_cache {
	unsigned generation;     /* of the capture under way; never 0 once cleared, so a zeroed entry is stale */
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
	/* After 2^32 captures the generation comes round again: start afresh. */
	if (++c->generation == 0) {
		for (size_t i = 0; i < CACHE_ENTRIES; i++)
			c->entries[i].generation = 0;
		c->generation = 1;
	}
}

static cache_entry *
slot(pm_cfi_cache *c, uint64_t hdr, uint64_t pc)
{
	uint64_t h = (pc ^ (pc >> 17) ^ hdr) * UINT64_C(0x9e3779b97f4a7c15);
	return &c->entries[(h >> 55) & (CACHE_ENTRIES - 1)];
}

pm_cfi_result
as_cfi_step_cached(pm_cfi_cache *c, const pm_mem *mem, uint64_t eh_frame_hdr, pm_cpu *cpu)
{
	if (!c || eh_frame_hdr == 0 || cpu->pc == 0)
		return as_cfi_step(mem, eh_frame_hdr, cpu);
	uint64_t pc = pm_cfi_lookup_pc(cpu);
	cache_entry *e = slot(c, eh_frame_hdr, pc);
	if (e->generation != c->generation || e->hdr != eh_frame_hdr || e->pc != pc) {
		pm_cfi_fde fde;
		e->hdr = eh_frame_hdr;
		e->pc = pc;
		e->result = as_cfi_find(mem, eh_frame_hdr, pc, &fde);
		if (e->result == PM_CFI_OK) {
			e->cie = fde.cie;
			e->result = as_cfi_run(mem, &fde, pc, &e->row);
		}
		e->generation = c->generation;
	}
	return e->result == PM_CFI_OK ? as_cfi_apply(mem, &e->cie, &e->row, cpu) : e->result;
}
