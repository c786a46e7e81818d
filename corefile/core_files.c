/*
 * core_files.c — the files a core mapped (NT_FILE), read for what the core
 * did not keep: code, unwind tables, symbol tables.  Given as descriptors
 * (the system reporter opens them through /proc/<pid>/map_files), a
 * mapping's file is the one of its exact range and no path is opened.
 * Else each is opened when first needed, as whoever reads the core, by
 * NT_FILE's path with no link followed in any component and only when it
 * is a regular file (as_open_file); beneath a sysroot when given, the
 * executable from --exe when given.  Where the core kept an
 * image's first page (the kernel keeps ELF headers) and that page holds a
 * build id, a file whose build id differs has changed since the crash and
 * is not read.  NOT AS-safe.
 */
#include "core_internal.h"

#include "as_memory.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { HEAD = 4096, BUILD_ID_MAX = 64 };

static int
by_start(const void *a, const void *b)
{
	const pm_core_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int
by_vaddr(const void *a, const void *b)
{
	const pm_core_segment *x = a, *y = b;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int
by_path(const void *a, const void *b, void *maps)
{
	const pm_core_mapping *m = maps;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int k = strcmp(m[x].path, m[y].path);
	return k ? k : (x > y) - (x < y);
}

static int
by_mapped_start(const void *a, const void *b)
{
	const pm_core_mapped *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The descriptor given for exactly [start, end), or -1. */
static int
mapped_fd(const pm_core_src *s, uint64_t start, uint64_t end)
{
	size_t i = pmi_core_find(s->mapped, s->nmapped, sizeof *s->mapped, offsetof(pm_core_mapped, start), start);
	return i < s->nmapped && s->mapped[i].start == start && s->mapped[i].end == end ? s->mapped[i].fd : -1;
}

/* With descriptors given: one file per descriptor (the caller gives one per
 * inode), each mapping to the one of its exact range, none where there is
 * none (a device, a file past the caller's cap: not read at all). */
static void
index_by_descriptor(pm_core *c, pm_core_src *s)
{
	qsort(s->mapped, s->nmapped, sizeof *s->mapped, by_mapped_start);
	size_t f = 0;
	for (size_t i = 0; i < c->nmaps; i++) {
		int fd = mapped_fd(s, c->maps[i].start, c->maps[i].end);
		/* A file's mappings are mostly next to each other: the last one first. */
		if (f >= s->nfiles || s->files[f].fd != fd)
			for (f = 0; f < s->nfiles && s->files[f].fd != fd;)
				f++;
		if (fd >= 0 && f == s->nfiles)
			s->files[s->nfiles++] = (pm_core_file){ .path = c->maps[i].path, .fd = fd, .borrowed = true };
		s->map_file[i] = fd >= 0 ? f : SIZE_MAX;
	}
}

pm_err
pmi_core_index_files(pm_core *c)
{
	pm_core_src *s = c->src;
	if (c->nsegs)
		qsort(c->segs, c->nsegs, sizeof *c->segs, by_vaddr);
	if (c->nmaps == 0)
		return PM_OK;
	qsort(c->maps, c->nmaps, sizeof *c->maps, by_start);
	s->map_file = malloc(c->nmaps * sizeof *s->map_file);
	s->files = calloc(c->nmaps, sizeof *s->files);
	if (!s->map_file || !s->files)
		return PM_E_NOMEM;
	if (s->mapped) {
		index_by_descriptor(c, s);
		return PM_OK;
	}
	size_t *order = malloc(c->nmaps * sizeof *order);
	if (!order)
		return PM_E_NOMEM;
	for (size_t i = 0; i < c->nmaps; i++)
		order[i] = i;
	qsort_r(order, c->nmaps, sizeof *order, by_path, c->maps);
	for (size_t k = 0; k < c->nmaps; k++) {
		size_t i = order[k];
		if (k == 0 || strcmp(c->maps[i].path, s->files[s->nfiles - 1].path) != 0)
			s->files[s->nfiles++] = (pm_core_file){ .path = c->maps[i].path, .fd = -1 };
		s->map_file[i] = s->nfiles - 1;
	}
	free(order);
	return PM_OK;
}

size_t
pmi_core_build_id(const unsigned char *p, size_t n, unsigned char *id, size_t cap)
{
	if (n < PM_CORE_EHDR || memcmp(p, ELFMAG, SELFMAG) != 0 || p[EI_CLASS] != ELFCLASS64)
		return 0;
	uint64_t phoff = pmi_core_u64(p + 32);
	uint16_t phnum = pmi_core_u16(p + 56);
	if (pmi_core_u16(p + 54) != PM_CORE_PHDR || phoff > n || phnum > (n - phoff) / PM_CORE_PHDR)
		return 0;
	for (uint16_t i = 0; i < phnum; i++) {
		const unsigned char *h = p + phoff + (size_t)i * PM_CORE_PHDR;
		uint64_t off = pmi_core_u64(h + 8), size = pmi_core_u64(h + 32);
		if (pmi_core_u32(h) != PT_NOTE || off > n || size > n - off)
			continue;
		for (uint64_t at = off; off + size - at >= 12;) {
			uint32_t namesz = pmi_core_u32(p + at), descsz = pmi_core_u32(p + at + 4);
			uint64_t name = at + 12, desc = name + ((namesz + 3ull) & ~3ull), next = desc + ((descsz + 3ull) & ~3ull);
			if (next > off + size)
				break;
			if (pmi_core_u32(p + at + 8) == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
			    descsz && descsz <= cap) {
				memcpy(id, p + desc, descsz);
				return descsz;
			}
			at = next;
		}
	}
	return 0;
}

uint64_t
pmi_core_auxv(const pm_core *c, uint64_t type)
{
	for (size_t i = 0; i < c->auxv_pairs; i++)
		if (c->auxv[2 * i] == type)
			return c->auxv[2 * i + 1];
	return 0;
}

const pm_core_mapping *
pmi_core_exe_map(const pm_core *c)
{
	const uint64_t wanted[] = { pmi_core_auxv(c, AT_PHDR), pmi_core_auxv(c, AT_ENTRY) };
	for (size_t w = 0; w < 2; w++)
		for (size_t m = 0; wanted[w] && m < c->nmaps; m++)
			if (wanted[w] >= c->maps[m].start && wanted[w] < c->maps[m].end)
				return &c->maps[m];
	return NULL;
}

static bool
is_exe(const pm_core *c, const char *path)
{
	const pm_core_mapping *m = pmi_core_exe_map(c);
	return m && strcmp(m->path, path) == 0;
}

/* The build id in the first page the core kept of file f, or 0. */
static size_t
kept_build_id(pm_core *c, size_t f, unsigned char *id)
{
	unsigned char head[HEAD];
	for (size_t m = 0; m < c->nmaps; m++) {
		if (c->src->map_file[m] != f || c->maps[m].offset != 0)
			continue;
		size_t n = c->maps[m].end - c->maps[m].start < HEAD ? (size_t)(c->maps[m].end - c->maps[m].start) : HEAD;
		if (pmi_core_own_read(c, c->maps[m].start, head, n))
			return pmi_core_build_id(head, n, id, BUILD_ID_MAX);
	}
	return 0;
}

bool
pmi_core_local_path(const pm_core *c, const char *path, char *out, size_t cap)
{
	const pm_core_src *s = c->src;
	int n = s->exe && is_exe(c, path) ? snprintf(out, cap, "%s", s->exe)
	        : path[0] == '/' && !as_path_climbs(path) ? snprintf(out, cap, "%s%s", s->sysroot ? s->sysroot : "", path)
	                                          : -1;
	return n >= 0 && (size_t)n < cap;
}

/* File f opened by its path: the executable given as given (links
 * followed: the caller named it), else NT_FILE's path with no link in any
 * component, beneath the sysroot when there is one; a regular file only
 * (as_open_file).  -1 when there is none. */
static int
open_by_path(pm_core *c, const char *path)
{
	pm_core_src *s = c->src;
	if (s->exe && is_exe(c, path))
		return as_open_file(AT_FDCWD, s->exe, AS_OPEN_FOLLOW);
	if (path[0] != '/' || as_path_climbs(path))
		return -1;
	if (s->sysroot)
		return s->sysroot_fd >= 0 ? as_open_file(s->sysroot_fd, path, AS_OPEN_NO_LINKS | AS_OPEN_BENEATH) : -1;
	return as_open_file(AT_FDCWD, path, AS_OPEN_NO_LINKS);
}

/* File f, opened or given, kept when its first page's build id is the
 * one the core kept (else it changed since the crash). */
static void
open_file(pm_core *c, size_t f)
{
	pm_core_src *s = c->src;
	pm_core_file *pf = &s->files[f];
	pf->tried = true;
	int fd = pf->borrowed ? pf->fd : open_by_path(c, pf->path);
	if (fd < 0)
		return;
	unsigned char want[BUILD_ID_MAX], have[BUILD_ID_MAX], head[HEAD];
	size_t wn = kept_build_id(c, f, want);
	if (wn) {
		ssize_t k = pread(fd, head, sizeof head, 0);
		size_t hn = k > 0 ? pmi_core_build_id(head, (size_t)k, have, sizeof have) : 0;
		if (hn != wn || memcmp(want, have, wn) != 0) {
			if (!pf->borrowed)
				close(fd);
			pf->fd = -1;
			return;
		}
	}
	pf->fd = fd;
}

/* The file of mapping m, opened when first needed; -1 when none. */
static int
map_fd(pm_core *c, size_t m)
{
	pm_core_src *s = c->src;
	size_t f = s->map_file[m];
	if (f == SIZE_MAX)
		return -1;
	if (!s->files[f].tried)
		open_file(c, f);
	return s->files[f].fd;
}

int
pmi_core_open_mapped(pm_core *c, const char *path)
{
	for (size_t m = 0; m < c->nmaps; m++) {
		if (strcmp(c->maps[m].path, path) != 0)
			continue;
		int fd = map_fd(c, m);
		if (fd >= 0)
			return fcntl(fd, F_DUPFD_CLOEXEC, 0);
	}
	return -1;
}

size_t
pmi_core_file_read(pm_core *c, uint64_t addr, void *dst, size_t n)
{
	size_t m = pmi_core_find(c->maps, c->nmaps, sizeof *c->maps, offsetof(pm_core_mapping, start), addr);
	if (m == c->nmaps || addr >= c->maps[m].end)
		return 0;
	int fd = map_fd(c, m);
	if (fd < 0)
		return 0;
	uint64_t left = c->maps[m].end - addr, off = c->maps[m].offset + (addr - c->maps[m].start);
	if (off > (uint64_t)INT64_MAX - n)
		return 0;
	ssize_t k = pread(fd, dst, left < n ? (size_t)left : n, (off_t)off);
	return k > 0 ? (size_t)k : 0;
}
