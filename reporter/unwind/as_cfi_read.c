/*
 * as_cfi_read.c — AS-SAFE bounded reads of unwind tables: fixed-size
 * integers, LEB128 and DW_EH_PE_* encoded pointers, through a pm_mem.
 *
 * Going byte by byte through the source would cost one process_vm_readv per
 * byte, so a cursor reads ahead up to PM_CFI_WINDOW bytes; the read-ahead
 * stops at the end of the page holding the wanted bytes (4 KiB, the smallest
 * page Linux uses) so it never touches a page the table does not occupy.
 * Tables are in this process's byte order, which postmortem's targets have
 * little-endian.
 */
#include "as_cfi_read.h"

#include <string.h>

enum { PAGE = 4096, MAX_LEB_BITS = 70 };

bool
as_cfi_cur_init(pm_cfi_cur *c, const pm_mem *mem, uint64_t pos, uint64_t len)
{
	c->mem = mem;
	c->pos = pos;
	c->end = pos + len;
	c->win = 0;
	c->win_len = 0;
	return c->end >= pos;
}

static bool
window_holds(const pm_cfi_cur *c, uint32_t n)
{
	return c->win_len != 0 && c->pos >= c->win && c->pos - c->win + n <= c->win_len;
}

static bool
refill(pm_cfi_cur *c, uint32_t n)
{
	uint64_t want = c->end - c->pos;
	/* Wraps to the distance to 2^64 on the last page, which is what is meant. */
	uint64_t to_page_end = (uint64_t)PAGE - (c->pos & (PAGE - 1));
	if (want > PM_CFI_WINDOW)
		want = PM_CFI_WINDOW;
	if (want > to_page_end && to_page_end >= n)
		want = to_page_end;
	c->win_len = 0;
	if (!pm_mem_read(c->mem, c->pos, c->buf, (size_t)want))
		return false;
	c->win = c->pos;
	c->win_len = (uint32_t)want;
	return true;
}

bool
as_cfi_bytes(pm_cfi_cur *c, void *dst, uint32_t n)
{
	if (n > PM_CFI_WINDOW || c->pos > c->end || n > c->end - c->pos)
		return false;
	if (!window_holds(c, n) && !refill(c, n))
		return false;
	memcpy(dst, c->buf + (c->pos - c->win), n);
	c->pos += n;
	return true;
}

bool
as_cfi_skip(pm_cfi_cur *c, uint64_t n)
{
	if (c->pos > c->end || n > c->end - c->pos)
		return false;
	c->pos += n;
	return true;
}

bool
as_cfi_u8(pm_cfi_cur *c, uint8_t *out)
{
	return as_cfi_bytes(c, out, 1);
}

bool
as_cfi_fixed(pm_cfi_cur *c, uint32_t n, bool is_signed, uint64_t *out)
{
	uint8_t b[8];
	if ((n != 1 && n != 2 && n != 4 && n != 8) || !as_cfi_bytes(c, b, n))
		return false;
	uint64_t v = 0;
	for (uint32_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	if (is_signed && n < 8) {
		uint64_t sign = UINT64_C(1) << (8 * n - 1);
		v = (v ^ sign) - sign;
	}
	*out = v;
	return true;
}

/* The bits of a LEB128 number; *bits is how many the encoding carried, *last its final byte. */
static bool
leb(pm_cfi_cur *c, uint64_t *out, unsigned *bits, uint8_t *last)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < MAX_LEB_BITS; shift += 7) {
		uint8_t b;
		if (!as_cfi_u8(c, &b))
			return false;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			*bits = shift + 7;
			*last = b;
			return true;
		}
	}
	return false;
}

bool
as_cfi_uleb(pm_cfi_cur *c, uint64_t *out)
{
	unsigned bits;
	uint8_t last;
	return leb(c, out, &bits, &last);
}

bool
as_cfi_sleb(pm_cfi_cur *c, int64_t *out)
{
	uint64_t v;
	unsigned bits;
	uint8_t last;
	if (!leb(c, &v, &bits, &last))
		return false;
	if (bits < 64 && (last & 0x40))
		v |= ~UINT64_C(0) << bits;
	*out = (int64_t)v;
	return true;
}

/* Pointer formats (low nibble of a DW_EH_PE_* encoding); size 0 is LEB128. */
static const struct {
	uint8_t size;
	bool is_signed;
	bool known;
} formats[16] = {
	[DW_EH_PE_absptr] = { 8, false, true },
	[DW_EH_PE_uleb128] = { 0, false, true },
	[DW_EH_PE_udata2] = { 2, false, true },
	[DW_EH_PE_udata4] = { 4, false, true },
	[DW_EH_PE_udata8] = { 8, false, true },
	[DW_EH_PE_sleb128] = { 0, true, true },
	[DW_EH_PE_sdata2] = { 2, true, true },
	[DW_EH_PE_sdata4] = { 4, true, true },
	[DW_EH_PE_sdata8] = { 8, true, true },
};

uint32_t
as_cfi_ptr_size(uint8_t enc)
{
	return formats[enc & 0x0f].known ? formats[enc & 0x0f].size : 0;
}

/* The stored value of an encoded pointer, and the address it was stored at. */
static bool
ptr_raw(pm_cfi_cur *c, uint8_t enc, uint64_t *at, uint64_t *v)
{
	unsigned f = enc & 0x0f;
	if (!formats[f].known)
		return false;
	if ((enc & 0x70) == DW_EH_PE_aligned) {
		/* Only meaningful for a whole pointer: skip to the next multiple of 8. */
		if (f != DW_EH_PE_absptr || !as_cfi_skip(c, (8 - (c->pos & 7)) & 7))
			return false;
	}
	*at = c->pos;
	if (formats[f].size != 0)
		return as_cfi_fixed(c, formats[f].size, formats[f].is_signed, v);
	if (!formats[f].is_signed)
		return as_cfi_uleb(c, v);
	int64_t s;
	if (!as_cfi_sleb(c, &s))
		return false;
	*v = (uint64_t)s;
	return true;
}

bool
as_cfi_ptr_skip(pm_cfi_cur *c, uint8_t enc)
{
	uint64_t at, v;
	return ptr_raw(c, enc, &at, &v);
}

bool
as_cfi_ptr(pm_cfi_cur *c, uint8_t enc, uint64_t datarel, uint64_t *out)
{
	uint64_t at, v;
	if (enc == DW_EH_PE_omit || !ptr_raw(c, enc, &at, &v))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_aligned:
		break;
	case DW_EH_PE_pcrel:
		v += at;
		break;
	case DW_EH_PE_datarel:
		if (datarel == 0)
			return false;
		v += datarel;
		break;
	default:
		/* textrel and funcrel need bases an unwind table lookup does not have. */
		return false;
	}
	if (enc & DW_EH_PE_indirect)
		return pm_mem_u64(c->mem, v, out);
	*out = v;
	return true;
}
