/*
 * minidump_string.c — AS-SAFE: MINIDUMP_STRINGs (UTF-16LE with a byte
 * length) from the model's UTF-8 strings.
 */
#include "minidump.h"
#include "model.h"

/* The code point at s (advancing it); U+FFFD for a byte that starts no valid sequence. */
static uint32_t
next_point(const unsigned char **s)
{
	const unsigned char *p = *s;
	uint32_t c = p[0];
	int more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
	*s = p + 1;
	if (more < 0)
		return 0xfffd;
	if (more == 0)
		return c;
	c &= 0x3fu >> more;
	for (int i = 1; i <= more; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0xfffd;
		c = c << 6 | (p[i] & 0x3fu);
	}
	*s = p + 1 + more;
	static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
	if (c < min[more] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		return 0xfffd;
	return c;
}

size_t
pmi_md_utf16_units(const char *s)
{
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p)
		n += next_point(&p) >= 0x10000 ? 2 : 1;
	return n;
}

size_t
pmi_md_string_size(const char *s)
{
	return 4 + 2 * pmi_md_utf16_units(s) + 2;
}

static void
put_unit(pm_out *o, uint32_t u)
{
	uint8_t b[2];
	pm_md_put16(b, (uint16_t)u);
	pmi_out_put(o, (const char *)b, 2);
}

void
pmi_md_put_string(pm_out *o, const char *s)
{
	uint8_t len[4];
	pm_md_put32(len, (uint32_t)(2 * pmi_md_utf16_units(s)));
	pmi_out_put(o, (const char *)len, 4);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		uint32_t c = next_point(&p);
		if (c >= 0x10000) {
			put_unit(o, 0xd800 + ((c - 0x10000) >> 10));
			put_unit(o, 0xdc00 + ((c - 0x10000) & 0x3ff));
		} else {
			put_unit(o, c);
		}
	}
	put_unit(o, 0);
}
