/*
 * as_cfi_hdr.c — AS-SAFE lookup of the FDE covering a pc through
 * .eh_frame_hdr (LSB Exception Frames): binary search of its sorted table,
 * or, when the linker left no usable table, a bounded walk of .eh_frame.
 *
 * The table only guides the search: the FDE it points to must itself cover
 * the pc, so a corrupt table yields "no information", never a wrong frame.
 */
#include "as_cfi_hdr.h"

enum {
	HDR_VERSION = 1,
	HDR_MAX = 4 + 2 * 10,           /* four bytes, then two pointers of at most a LEB128's size */
};

/* The last CIE parsed, as consecutive FDEs usually share one. */
typedef struct cie_cache {
	bool have;
	uint64_t addr;
	pm_cfi_cie cie;
} cie_cache;

/* The FDE of entry e into fde; PM_CFI_NOINFO if it is a CIE or does not cover pc. */
static pm_cfi_result
fde_of_entry(const pm_mem *mem, const pm_cfi_entry *e, cie_cache *cache, uint64_t pc, pm_cfi_fde *fde)
{
	uint64_t cie_addr;
	pm_cfi_result r;
	if (e->id == 0)
		return PM_CFI_NOINFO;
	if (!as_cfi_cie_of(e, &cie_addr))
		return PM_CFI_BAD;
	if (!cache->have || cache->addr != cie_addr) {
		cache->have = false;
		if ((r = as_cfi_cie_parse(mem, cie_addr, &cache->cie)) != PM_CFI_OK)
			return r;
		cache->have = true;
		cache->addr = cie_addr;
	}
	if ((r = as_cfi_fde_parse(mem, e, &cache->cie, fde)) != PM_CFI_OK)
		return r;
	return pc >= fde->begin && pc < fde->end ? PM_CFI_OK : PM_CFI_NOINFO;
}

static pm_cfi_result
linear(const pm_mem *mem, uint64_t eh_frame, uint64_t pc, pm_cfi_fde *fde)
{
	cie_cache cache = { .have = false };
	uint64_t at = eh_frame;
	for (unsigned i = 0; i < PM_CFI_MAX_LINEAR; i++) {
		pm_cfi_entry e;
		pm_cfi_result r = as_cfi_entry_read(mem, at, &e);
		if (r != PM_CFI_OK)
			return r; /* the terminator ends the search with NOINFO */
		r = fde_of_entry(mem, &e, &cache, pc, fde);
		if (r != PM_CFI_NOINFO)
			return r;
		at = e.end;
	}
	return PM_CFI_NOINFO;
}

/* Field `field` (0: initial location, 1: FDE address) of table entry i. */
static bool
table_field(const pm_mem *mem, uint64_t hdr, uint64_t table, uint8_t enc, uint64_t i, unsigned field,
            uint64_t *out)
{
	pm_cfi_cur c;
	uint32_t size = as_cfi_ptr_size(enc);
	return as_cfi_cur_init(&c, mem, table + (2 * i + field) * size, size) &&
	       as_cfi_ptr(&c, enc, hdr, out);
}

static pm_cfi_result
search(const pm_mem *mem, uint64_t hdr, uint64_t table, uint8_t enc, uint64_t count, uint64_t pc,
       pm_cfi_fde *fde)
{
	uint32_t size = as_cfi_ptr_size(enc);
	if (count > (UINT64_MAX - table) / (2 * size))
		return PM_CFI_BAD;
	/* lo ends as the number of entries whose initial location is <= pc. */
	uint64_t lo = 0, hi = count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, loc;
		if (!table_field(mem, hdr, table, enc, mid, 0, &loc))
			return PM_CFI_BAD;
		if (loc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t at;
	if (lo == 0)
		return PM_CFI_NOINFO;
	if (!table_field(mem, hdr, table, enc, lo - 1, 1, &at))
		return PM_CFI_BAD;
	pm_cfi_entry e;
	cie_cache cache = { .have = false };
	pm_cfi_result r = as_cfi_entry_read(mem, at, &e);
	if (r != PM_CFI_OK)
		return PM_CFI_BAD;
	return e.id == 0 ? PM_CFI_BAD : fde_of_entry(mem, &e, &cache, pc, fde);
}

pm_cfi_result
as_cfi_find(const pm_mem *mem, uint64_t hdr, uint64_t pc, pm_cfi_fde *fde)
{
	pm_cfi_cur c;
	uint8_t head[4];
	uint64_t eh_frame, count;
	if (!as_cfi_cur_init(&c, mem, hdr, HDR_MAX) || !as_cfi_bytes(&c, head, sizeof head) ||
	    head[0] != HDR_VERSION || !as_cfi_ptr(&c, head[1], hdr, &eh_frame))
		return PM_CFI_BAD;
	uint8_t count_enc = head[2], table_enc = head[3];
	if (count_enc == DW_EH_PE_omit || table_enc == DW_EH_PE_omit)
		return linear(mem, eh_frame, pc, fde);
	if (!as_cfi_ptr(&c, count_enc, hdr, &count))
		return PM_CFI_BAD;
	/* Binary search needs fixed-size entries; anything else is searched linearly. */
	if (as_cfi_ptr_size(table_enc) == 0 || (table_enc & 0x70) == DW_EH_PE_aligned)
		return linear(mem, eh_frame, pc, fde);
	return search(mem, hdr, c.pos, table_enc, count, pc, fde);
}
