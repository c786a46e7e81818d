/*
 * debug_id.c — AS-SAFE: the one place that turns an image's build id into the
 * debug id Sentry, Breakpad and Crashpad name it by (docs/identifiers.md).
 */
#include "debug_id.h"

#include <string.h>

#include "out.h"

void
pmi_guid_swap(uint8_t id[16])
{
	/* The first three GUID fields, read as little-endian integers. */
	static const uint8_t field_end[] = { 4, 6, 8 };
	for (size_t f = 0, lo = 0; f < sizeof field_end; lo = field_end[f++])
		for (size_t a = lo, b = field_end[f] - 1u; a < b; a++, b--) {
			uint8_t t = id[a];
			id[a] = id[b];
			id[b] = t;
		}
}

bool
pm_image_debug_id(const pm_image *img, uint8_t os, uint8_t out[16])
{
	memset(out, 0, 16);
	if (img->build_id_len == 0)
		return false;
	memcpy(out, img->build_id, img->build_id_len < 16 ? img->build_id_len : 16);
	/* A Mach-O UUID already is the debug id; an ELF build id is bytes that
	 * Breakpad reads as a little-endian GUID. */
	if (os == PM_OS_LINUX)
		pmi_guid_swap(out);
	return true;
}

void
pmi_out_uuid(pm_out *o, const uint8_t id[16], bool dashes)
{
	for (unsigned i = 0; i < 16; i++) {
		if (dashes && (i == 4 || i == 6 || i == 8 || i == 10))
			pmi_out_ch(o, '-');
		pmi_out_hex(o, id[i], 2);
	}
}
