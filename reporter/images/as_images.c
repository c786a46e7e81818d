/*
 * as_images.c — AS-SAFE image table from the target's mappings and the ELF
 * headers in its memory.
 *
 * Every mapping at file offset 0 that starts with an ELF header is an image:
 * its program headers give the load bias, the text span (first to last
 * PT_LOAD), PT_GNU_EH_FRAME for the unwinder, PT_DYNAMIC for .dynsym and
 * PT_NOTE for NT_GNU_BUILD_ID.  Scanning at crash time (not at install) finds
 * libraries dlopen'ed since, and keeps pm_install cheap.
 */
#include "as_images.h"
#include "model.h"

#include <elf.h>
#include <string.h>
#include <sys/mman.h>

#include "as_elf.h"
#include "as_memory.h"

enum { MAX_PHDRS = 64, MAX_NOTES = 4096 };

static const char *
arch_of(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64: return "x86_64";
	case EM_AARCH64: return "arm64";
	case EM_386: return "i386";
	case EM_ARM: return "armv7";
	default: return "unknown-arch";
	}
}

/*
 * An image's first page, read in one go: it holds the ELF header and, as
 * linkers lay images out, the program headers and the build-id note, which
 * are then taken from it instead of read one by one.  The scan reads it
 * without the capture's page cache, whose pages are fresh at the first
 * crash: copying into a fresh page costs several times a read.
 */
typedef struct elf_head {
	const pm_mem *mem;
	uint64_t base;
	_Alignas(8) uint8_t bytes[PM_MEM_PAGE];
} elf_head;

/* n bytes at addr, from the first page when they lie in it. */
static bool
head_read(const elf_head *h, uint64_t addr, void *dst, size_t n)
{
	if (addr >= h->base && n <= sizeof h->bytes && addr - h->base <= sizeof h->bytes - n) {
		memcpy(dst, h->bytes + (addr - h->base), n);
		return true;
	}
	return pm_mem_read(h->mem, addr, dst, n);
}

/* The notes of a PT_NOTE segment that lies beyond the first page (no linker
 * puts it there), read apart: apart so that the usual scan does not take
 * this buffer's stack too (a fresh page of the signal stack costs a fault). */
static __attribute__((noinline)) bool
far_build_id(const pm_mem *mem, uint64_t addr, uint64_t size, pm_image *img)
{
	uint8_t notes[MAX_NOTES];
	size_t at, len;
	if (size > sizeof notes)
		size = sizeof notes;
	if (!pm_mem_read(mem, addr, notes, size) || !as_elf_find_build_id(notes, size, &at, &len) || len == 0)
		return false;
	if (len > PM_BUILD_ID_MAX)
		len = PM_BUILD_ID_MAX;
	memcpy(img->build_id, notes + at, len);
	img->build_id_len = (uint8_t)len;
	return true;
}

static void
read_build_id(const elf_head *h, uint64_t addr, uint64_t size, pm_image *img)
{
	size_t at, len;
	if (addr < h->base || addr - h->base > sizeof h->bytes || size > sizeof h->bytes - (addr - h->base)) {
		far_build_id(h->mem, addr, size, img);
		return;
	}
	/* In the first page: its notes are read where they are. */
	const uint8_t *notes = h->bytes + (addr - h->base);
	if (!as_elf_find_build_id(notes, (size_t)size, &at, &len) || len == 0)
		return;
	if (len > PM_BUILD_ID_MAX)
		len = PM_BUILD_ID_MAX;
	memcpy(img->build_id, notes + at, len);
	img->build_id_len = (uint8_t)len;
}

/* The span of the PT_LOAD segments, [*lo, *hi) in link-time addresses. */
static void
load_span(const elf_head *h, const Elf64_Ehdr *eh, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		if (!head_read(h, h->base + eh->e_phoff + i * sizeof ph, &ph, sizeof ph)) {
			*hi = 0;
			return;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < *lo)
			*lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
	}
}

/* Fill `ai` and `img` from the image mapped at `base`; false if it is not an ELF image.
 * The program headers are taken one at a time from the first page, not
 * copied out whole: the scan's stack is then one page less deep. */
static bool
read_elf(const pm_mem *mem, uint64_t base, pm_as_image *ai, pm_image *img)
{
	elf_head h = { .mem = mem, .base = base };
	Elf64_Ehdr eh;
	/* A mapping's first page is readable whole, as maps says it is. */
	if (!pm_mem_read(mem, base, h.bytes, sizeof h.bytes))
		return false;
	memcpy(&eh, h.bytes, sizeof eh);
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS)
		return false;
	uint64_t lo, hi;
	load_span(&h, &eh, &lo, &hi);
	if (lo >= hi)
		return false;
	lo &= ~(uint64_t)0xfff;
	ai->bias = base - lo;
	ai->start = base;
	ai->end = ai->bias + ((hi + 0xfff) & ~(uint64_t)0xfff);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (!head_read(&h, base + eh.e_phoff + i * sizeof ph, &ph, sizeof ph))
			return false;
		uint64_t at = ai->bias + ph.p_vaddr;
		if (ph.p_type == PT_GNU_EH_FRAME)
			ai->eh_frame_hdr = at;
		else if (ph.p_type == PT_DYNAMIC)
			ai->dynamic = at;
		else if (ph.p_type == PT_NOTE && img->build_id_len == 0)
			read_build_id(&h, at, ph.p_filesz, img);
	}
	img->start = ai->start;
	img->size = ai->end - ai->start;
	img->arch = arch_of(eh.e_machine);
	return true;
}

static bool
is_image_path(const char *path, size_t n)
{
	return (n > 0 && path[0] == '/') || (n == 6 && memcmp(path, "[vdso]", 6) == 0);
}

static bool
already_listed(const pm_as_images *out, uint64_t start)
{
	for (size_t i = 0; i < out->count; i++)
		if (out->images[i].start == start)
			return true;
	return false;
}

static void
add_image(pm_as_images *out, pm_report *r, const pm_mem *mem, const char *exe_path,
          uint64_t base, const char *path, size_t path_len)
{
	if (out->count == out->cap || already_listed(out, base)) {
		r->images_truncated |= out->count == out->cap;
		return;
	}
	pm_as_image ai = { 0 };
	pm_image img = { 0 };
	if (!read_elf(mem, base, &ai, &img))
		return;
	const char *p = pmi_arena_strndup(r->arena, path, path_len);
	if (!p)
		return;
	img.path = p;
	img.name = as_basename(p);
	img.is_app = exe_path && strcmp(p, exe_path) == 0;
	ai.model_index = r->image_count;
	r->images[r->image_count++] = img;
	out->images[out->count++] = ai;
}

/*
 * The map table's pages are fresh at the first crash, and a process has two
 * mappings per thread (its stack and the guard below it): the table is made
 * resident ahead of the parse, a page first, then as many entries again as
 * it holds, with one call (about 1 us a page on a paravirtualized guest)
 * instead of a fault for each page (about 14 us).  Returns how many entries
 * are resident now.
 */
static size_t
make_resident(const pm_as_images *out)
{
	size_t have = out->map_count, more = have > 0 ? have : 4096 / sizeof(pm_as_map);
	if (more > out->map_cap - have)
		more = out->map_cap - have;
	if (more > 0)
		as_sys_populate(out->maps + have, more * sizeof(pm_as_map));
	return have + more;
}

void
as_images_scan(pm_as_images *out, pm_report *r, const as_target *t, const char *exe_path,
               char *linebuf, size_t linebuf_cap)
{
	as_maps maps;
	out->count = 0;
	out->map_count = 0;
	out->maps_truncated = false;
	if (!as_maps_open(&maps, t, linebuf, linebuf_cap))
		return;
	as_mapping m;
	size_t resident = 0;
	while (as_maps_next(&maps, &m)) {
		if (out->map_count == resident)
			resident = make_resident(out);
		if (out->map_count < out->map_cap)
			out->maps[out->map_count++] = (pm_as_map){ .start = m.start, .end = m.end, .prot = m.prot };
		else
			out->maps_truncated = true;
		/* Mappings come in address order (the kernel lists them so), so images come out sorted. */
		if (m.offset == 0 && (m.prot & PROT_READ) && is_image_path(m.path, m.path_len))
			add_image(out, r, &t->mem, exe_path, m.start, m.path, m.path_len);
	}
	as_maps_close(&maps);
}

const pm_as_image *
as_image_for(const pm_as_images *im, uint64_t addr)
{
	size_t lo = 0, hi = im->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < im->images[mid].start)
			hi = mid;
		else if (addr >= im->images[mid].end)
			lo = mid + 1;
		else
			return &im->images[mid];
	}
	return NULL;
}

const pm_as_map *
as_map_for(const pm_as_images *im, uint64_t addr)
{
	size_t lo = 0, hi = im->map_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < im->maps[mid].start)
			hi = mid;
		else if (addr >= im->maps[mid].end)
			lo = mid + 1;
		else
			return &im->maps[mid];
	}
	return NULL;
}
