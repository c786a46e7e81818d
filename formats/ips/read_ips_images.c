/*
 * read_ips_images.c — .ips usedImages -> pm_image (§11.7).  Array order is
 * kept: frames refer to images by position.
 */
#include "model.h"
#include "read_ips.h"

#include <string.h>

#include "json.h"
#include "text.h"

/*
 * A dashed (or bare) 32-digit UUID -> 16 bytes.  build_id_len stays 0 when it
 * is malformed or all zeros (the placeholder's "no UUID"), as in the text reader.
 */
static void
read_uuid(const cJSON *uuid, pm_image *im)
{
	uint8_t out[16] = { 0 };
	unsigned nibbles = 0;
	bool nonzero = false;
	for (const char *s = cJSON_IsString(uuid) ? uuid->valuestring : ""; *s; s++) {
		if (*s == '-')
			continue;
		if (!pmi_tx_is_hex(*s) || nibbles == 32)
			return;
		unsigned v = pmi_tx_hex_value(*s);
		out[nibbles / 2] = (uint8_t)(out[nibbles / 2] << 4 | v);
		nonzero |= v != 0;
		nibbles++;
	}
	if (nibbles != 32 || !nonzero)
		return;
	memcpy(im->build_id, out, sizeof out);
	im->build_id_len = sizeof out;
}

/* The last path component, for images whose entry has no "name". */
static const char *
base_name(pm_arena *a, const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *name = slash ? slash + 1 : path;
	return name && *name ? pmi_arena_strdup(a, name) : NULL;
}

static void
read_image(const cJSON *j, pm_report *r, pm_image *im)
{
	pm_arena *a = r->arena;
	pmi_json_get_u64(j, "base", &im->start);
	pmi_json_get_u64(j, "size", &im->size);
	read_uuid(pmi_json_get(j, "uuid"), im);
	im->path = pmi_ips_str(a, j, "path");
	im->name = pmi_ips_str(a, j, "name");
	if (!im->name)
		im->name = base_name(a, im->path);
	im->arch = pmi_ips_str(a, j, "arch");
	im->version = pmi_ips_str(a, j, "CFBundleShortVersionString");
	const cJSON *source = pmi_json_get(j, "source");
	im->source = cJSON_IsString(source) ? source->valuestring[0] : 0;
	im->is_app = im->path && r->header.process_path && strcmp(im->path, r->header.process_path) == 0;
}

void
pmi_ips_images(const cJSON *b, pm_report *r)
{
	const cJSON *arr = pmi_json_get(b, "usedImages");
	uint32_t n = pmi_ips_count(arr, PM_IPS_MAX_IMAGES, &r->images_truncated);
	r->images = n ? pmi_arena_alloc(r->arena, n * sizeof *r->images, _Alignof(pm_image)) : NULL;
	if (!r->images)
		return;
	uint32_t i = 0;
	for (const cJSON *j = arr->child; j && i < n; j = j->next)
		read_image(j, r, &r->images[i++]);
	r->image_count = n;
}
