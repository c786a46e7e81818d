/*
 * as_cfi_entry.c — AS-SAFE parsing of .eh_frame CIEs and FDEs (LSB
 * Exception Frames, DWARF 5 §6.4.1): 32- and 64-bit lengths, CIE versions
 * 1, 3 and 4, 'z' augmentations.  Every field is read within the entry its
 * length announces.
 */
#include "as_cfi_entry.h"

#include <string.h>

/* A 32-bit length of all ones announces a 64-bit length. */
static const uint64_t len64_escape = 0xffffffffu;

enum {
	ENTRY_HEAD_MAX = 4 + 8 + 8,     /* 64-bit length escape, length, CIE pointer */
	MAX_AUG = 16,
	ADDRESS_SIZE = 8,
};

pm_cfi_result
as_cfi_entry_read(const pm_mem *mem, uint64_t addr, pm_cfi_entry *e)
{
	pm_cfi_cur c;
	uint64_t len;
	if (!as_cfi_cur_init(&c, mem, addr, ENTRY_HEAD_MAX) || !as_cfi_fixed(&c, 4, false, &len))
		return PM_CFI_BAD;
	if (len == 0)
		return PM_CFI_NOINFO;
	bool is64 = len == len64_escape;
	if (is64 && !as_cfi_fixed(&c, 8, false, &len))
		return PM_CFI_BAD;
	uint32_t id_size = is64 ? 8 : 4;
	if (len < id_size || len > PM_CFI_MAX_ENTRY || c.pos + len < c.pos)
		return PM_CFI_BAD;
	e->id_at = c.pos;
	e->body = c.pos + id_size;
	e->end = c.pos + len;
	return as_cfi_fixed(&c, id_size, false, &e->id) ? PM_CFI_OK : PM_CFI_BAD;
}

bool
as_cfi_cie_of(const pm_cfi_entry *fde, uint64_t *addr)
{
	if (fde->id > fde->id_at)
		return false;
	*addr = fde->id_at - fde->id;
	return true;
}

/* The NUL-terminated augmentation string, at most MAX_AUG bytes with its NUL. */
static bool
read_aug_string(pm_cfi_cur *c, char aug[MAX_AUG])
{
	for (size_t i = 0; i < MAX_AUG; i++) {
		if (!as_cfi_u8(c, (uint8_t *)&aug[i]))
			return false;
		if (aug[i] == '\0')
			return true;
	}
	return false;
}

/* Version 4 names the sizes; only 8-byte addresses without segments make sense here. */
static bool
sizes_ok(pm_cfi_cur *c, uint8_t version)
{
	uint8_t address_size, segment_size;
	if (version < 4)
		return true;
	return as_cfi_u8(c, &address_size) && as_cfi_u8(c, &segment_size) &&
	       address_size == ADDRESS_SIZE && segment_size == 0;
}

static bool
read_ra(pm_cfi_cur *c, uint8_t version, uint64_t *ra)
{
	uint8_t b;
	if (version != 1)
		return as_cfi_uleb(c, ra);
	if (!as_cfi_u8(c, &b))
		return false;
	*ra = b;
	return true;
}

/* The letters after 'z' describe the augmentation data in order; its length lets
 * us step over what we only skip (the LSDA and personality). */
static bool
parse_augmentation(pm_cfi_cur *c, const char *aug, pm_cfi_cie *cie)
{
	uint64_t len;
	uint8_t enc;
	if (aug[0] == '\0')
		return true;
	if (aug[0] != 'z' || !as_cfi_uleb(c, &len) || len > c->end - c->pos)
		return false;
	uint64_t data_end = c->pos + len;
	cie->has_aug_data = true;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'L':
			if (!as_cfi_u8(c, &enc))
				return false;
			break;
		case 'P':
			if (!as_cfi_u8(c, &enc) || !as_cfi_ptr_skip(c, enc))
				return false;
			break;
		case 'R':
			if (!as_cfi_u8(c, &cie->fde_enc))
				return false;
			break;
		case 'S':
			cie->signal = true;
			break;
		case 'B': /* AArch64 BTI and MTE marks carry no data */
		case 'G':
			break;
		default:
			return false;
		}
	}
	if (c->pos > data_end)
		return false;
	c->pos = data_end;
	return true;
}

pm_cfi_result
as_cfi_cie_parse(const pm_mem *mem, uint64_t addr, pm_cfi_cie *cie)
{
	pm_cfi_entry e;
	pm_cfi_cur c;
	uint8_t version;
	char aug[MAX_AUG];
	if (as_cfi_entry_read(mem, addr, &e) != PM_CFI_OK || e.id != 0 ||
	    !as_cfi_cur_init(&c, mem, e.body, e.end - e.body) || !as_cfi_u8(&c, &version) ||
	    (version != 1 && version != 3 && version != 4) || !read_aug_string(&c, aug))
		return PM_CFI_BAD;
	memset(cie, 0, sizeof *cie);
	cie->fde_enc = DW_EH_PE_absptr;
	if (!sizes_ok(&c, version) || !as_cfi_uleb(&c, &cie->code_align) ||
	    !as_cfi_sleb(&c, &cie->data_align) || !read_ra(&c, version, &cie->ra) ||
	    !parse_augmentation(&c, aug, cie))
		return PM_CFI_BAD;
	cie->insn = c.pos;
	cie->insn_end = e.end;
	return PM_CFI_OK;
}

pm_cfi_result
as_cfi_fde_parse(const pm_mem *mem, const pm_cfi_entry *e, const pm_cfi_cie *cie, pm_cfi_fde *fde)
{
	pm_cfi_cur c;
	uint64_t begin, range, aug_len;
	/* The range has the pointer's format but is a length: no application. */
	if (!as_cfi_cur_init(&c, mem, e->body, e->end - e->body) ||
	    !as_cfi_ptr(&c, cie->fde_enc, 0, &begin) ||
	    !as_cfi_ptr(&c, cie->fde_enc & 0x0f, 0, &range) || begin + range < begin)
		return PM_CFI_BAD;
	if (cie->has_aug_data && (!as_cfi_uleb(&c, &aug_len) || !as_cfi_skip(&c, aug_len)))
		return PM_CFI_BAD;
	fde->cie = *cie;
	fde->begin = begin;
	fde->end = begin + range;
	fde->insn = c.pos;
	fde->insn_end = e->end;
	return PM_CFI_OK;
}
