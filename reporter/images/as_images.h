/*
 * as_images.h — the door of reporter/images: AS-SAFE discovery of a
 * target's loaded ELF images and of its memory map, from its mappings and
 * the ELF headers in its memory (no loader lock: dl_iterate_phdr and dladdr
 * are never called on the crash path), and the ELF helpers the symbol
 * tables share (as_elf.h).
 */
#ifndef PM_REPORTER_AS_IMAGES_H
#define PM_REPORTER_AS_IMAGES_H

#include "as_elf.h"
#include "as_memory.h"
#include "model.h"
#include "postmortem-tools.h"

/* What the unwinder and the symbolizer need to know about an image. */
typedef struct pm_as_image {
	uint64_t start, end;      /* span of the PT_LOAD segments, end exclusive */
	uint64_t bias;            /* runtime address - link-time address */
	uint64_t eh_frame_hdr;    /* runtime address of PT_GNU_EH_FRAME, 0 if none */
	uint64_t dynamic;         /* runtime address of PT_DYNAMIC, 0 if none */
	uint32_t model_index;     /* index of the pm_image in the report */
} pm_as_image;

/* One mapping of the target. */
typedef struct pm_as_map {
	uint64_t start, end;
	uint8_t prot;             /* PROT_READ | PROT_WRITE | PROT_EXEC */
} pm_as_map;

typedef struct pm_as_images {
	pm_as_image *images;      /* sorted by start */
	size_t count, cap;
	pm_as_map *maps;          /* in address order */
	size_t map_count, map_cap;
	bool maps_truncated;
} pm_as_images;

/*
 * Read the target's mappings and each image's ELF headers through its
 * memory; append a pm_image per image to the report (strings in its arena,
 * the main executable marked by exe_path) and fill `out`.  `linebuf` holds
 * one read chunk of a maps file.
 */
void as_images_scan(pm_as_images *out, pm_report *r, const as_target *t, const char *exe_path,
                    char *linebuf, size_t linebuf_cap);
/* The image containing addr, or NULL.  Binary search. */
const pm_as_image *as_image_for(const pm_as_images *im, uint64_t addr);
/* The mapping containing addr, or NULL.  Binary search. */
const pm_as_map *as_map_for(const pm_as_images *im, uint64_t addr);

#endif
