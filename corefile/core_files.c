/*
 * core_files.c — the files a core mapped (NT_FILE), read for what the core
 * did not keep: code, unwind tables, symbol tables.  Each is opened when
 * first needed, as whoever reads the core, with O_NOFOLLOW; under a sysroot
 * when given, the executable from --exe when given.  Where the core kept an
 * image's first page (the kernel keeps ELF headers) and that page holds a
 * build id, a file whose build id differs has changed since the crash and
 * is not read.  NOT AS-safe.
 */
#include "core_internal.h"

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

pm_err
pmi_core_index_files(pm_core *c)
{
	pm_core_src *s = c->src;
	if (c->nsegs)
		qsort(c->segs, c->nsegs, sizeof *c->segs, by_vaddr);
	if (c->nmaps == 0)
		return PM_OK;
	qsort(c->maps, c->nmaps, sizeof *c->maps, by_start);
	size_t *order = malloc(c->nmaps * sizeof *order);
	s->map_file = malloc(c->nmaps * sizeof *s->map_file);
	s->files = calloc(c->nmaps, sizeof *s->files);
	if (!order || !s->map_file || !s->files) {
		free(order);
		return PM_E_NOMEM;
	}
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

/* The map of the executable: the one holding AT_PHDR, else AT_ENTRY. */
static bool
is_exe(const pm_core *c, const char *path)
{
	for (uint64_t want = AT_PHDR;; want = AT_ENTRY) {
		for (size_t i = 0; i < c->auxv_pairs; i++) {
			if (c->auxv[2 * i] != want)
				continue;
			uint64_t v = c->auxv[2 * i + 1];
			for (size_t m = 0; m < c->nmaps; m++)
				if (v >= c->maps[m].start && v < c->maps[m].end)
					return strcmp(c->maps[m].path, path) == 0;
		}
		if (want == AT_ENTRY)
			return false;
	}
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

static void
open_file(pm_core *c, size_t f)
{
	pm_core_src *s = c->src;
	pm_core_file *pf = &s->files[f];
	char path[PATH_MAX];
	pf->tried = true;
	if (s->exe && is_exe(c, pf->path))
		snprintf(path, sizeof path, "%s", s->exe);
	else if (pf->path[0] != '/' ||
	         snprintf(path, sizeof path, "%s%s", s->sysroot ? s->sysroot : "", pf->path) >= (int)sizeof path)
		return;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	unsigned char want[BUILD_ID_MAX], have[BUILD_ID_MAX], head[HEAD];
	size_t wn = kept_build_id(c, f, want);
	if (wn) {
		ssize_t k = pread(fd, head, sizeof head, 0);
		size_t hn = k > 0 ? pmi_core_build_id(head, (size_t)k, have, sizeof have) : 0;
		if (hn != wn || memcmp(want, have, wn) != 0) {
			close(fd);
			return;
		}
	}
	pf->fd = fd;
}

size_t
pmi_core_file_read(pm_core *c, uint64_t addr, void *dst, size_t n)
{
	pm_core_src *s = c->src;
	size_t m = pmi_core_find(c->maps, c->nmaps, sizeof *c->maps, offsetof(pm_core_mapping, start), addr);
	if (m == c->nmaps || addr >= c->maps[m].end)
		return 0;
	size_t f = s->map_file[m];
	if (!s->files[f].tried)
		open_file(c, f);
	if (s->files[f].fd < 0)
		return 0;
	uint64_t left = c->maps[m].end - addr, off = c->maps[m].offset + (addr - c->maps[m].start);
	if (off > (uint64_t)INT64_MAX - n)
		return 0;
	ssize_t k = pread(s->files[f].fd, dst, left < n ? (size_t)left : n, (off_t)off);
	return k > 0 ? (size_t)k : 0;
}
