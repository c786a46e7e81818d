/*
 * symb_addrs.c — the benchmark's input: addresses inside the functions of
 * large libraries with full DWARF in Debian -dbg packages, picked from the
 * debug files' symbol tables (aliases counted once), every code byte of a
 * library equally likely, the same every run (fixed seed).
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symb_bench.h"

typedef struct span {
	uint64_t lo, size;
} span;

typedef struct funcs {
	span *v;
	size_t n;
	uint64_t *cum;           /* cum[i]: code bytes in v[0..i] */
} funcs;

static Elf *
open_elf(const char *path, int *fd)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = *fd < 0 ? NULL : elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*fd >= 0 && !e)
		close(*fd);
	return e;
}

static void
close_elf(Elf *e, int fd)
{
	elf_end(e);
	close(fd);
}

static bool
has_dwarf(const char *path)
{
	int fd;
	size_t shstrndx;
	bool found = false;
	Elf *e = open_elf(path, &fd);
	if (!e)
		return false;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn && !found && elf_getshdrstrndx(e, &shstrndx) == 0;
	     scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		found = name && strcmp(name, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS;
	}
	close_elf(e, fd);
	return found;
}

bool
sb_lib_open(sb_lib *l, const char *path, uint64_t base)
{
	int fd;
	elf_version(EV_CURRENT);
	memset(l, 0, sizeof *l);
	l->path = path;
	l->base = base;
	Elf *e = open_elf(path, &fd);
	const void *id;
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
	size_t phnum = 0;
	if (n <= 0 || n > PM_BUILD_ID_MAX || elf_getphdrnum(e, &phnum) != 0) {
		fprintf(stderr, "bench_symbolicate: %s: not a library with a build id\n", path);
		if (e)
			close_elf(e, fd);
		return false;
	}
	memcpy(l->build_id, id, (size_t)n);
	l->build_id_len = (size_t)n;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz > l->size)
			l->size = (ph.p_vaddr + ph.p_memsz + 0xfff) & ~(uint64_t)0xfff;
	}
	close_elf(e, fd);
	int k = snprintf(l->debug_path, sizeof l->debug_path, "/usr/lib/debug/.build-id/%02x/", l->build_id[0]);
	for (size_t i = 1; i < l->build_id_len; i++)
		k += snprintf(l->debug_path + k, sizeof l->debug_path - (size_t)k, "%02x", l->build_id[i]);
	snprintf(l->debug_path + k, sizeof l->debug_path - (size_t)k, ".debug");
	if (access(l->debug_path, R_OK) == 0)
		return true;
	/* A library built with its DWARF in place is its own debug file. */
	if (has_dwarf(path)) {
		snprintf(l->debug_path, sizeof l->debug_path, "%s", path);
		return true;
	}
	fprintf(stderr, "bench_symbolicate: no debug file %s for %s (is its -dbg package installed?)\n",
	        l->debug_path, path);
	return false;
}

static int
by_lo(const void *a, const void *b)
{
	const span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool
load_funcs(const char *debug_path, funcs *f)
{
	int fd;
	Elf *e = open_elf(debug_path, &fd);
	memset(f, 0, sizeof *f);
	if (!e)
		return false;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		f->v = malloc(n * sizeof *f->v);
		for (size_t i = 0; f->v && i < n; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_size > 0 &&
			    s.st_shndx != SHN_UNDEF)
				f->v[f->n++] = (span){ s.st_value, s.st_size };
		}
	}
	close_elf(e, fd);
	if (!f->n)
		return false;
	qsort(f->v, f->n, sizeof *f->v, by_lo);
	size_t out = 0;
	for (size_t i = 0; i < f->n; i++)
		if (out == 0 || f->v[i].lo != f->v[out - 1].lo)
			f->v[out++] = f->v[i];
	f->n = out;
	f->cum = malloc(f->n * sizeof *f->cum);
	for (size_t i = 0; f->cum && i < f->n; i++)
		f->cum[i] = (i ? f->cum[i - 1] : 0) + f->v[i].size;
	return f->cum != NULL;
}

static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t
pick(const funcs *f, uint64_t *seed)
{
	uint64_t byte = next_random(seed) % f->cum[f->n - 1];
	size_t lo = 0, hi = f->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->cum[mid] > byte)
			hi = mid;
		else
			lo = mid + 1;
	}
	return f->v[lo].lo + (byte - (lo ? f->cum[lo - 1] : 0));
}

sb_addr *
sb_addrs_make(const sb_lib *libs, size_t nlibs, size_t n, uint64_t seed)
{
	funcs *f = calloc(nlibs, sizeof *f);
	sb_addr *a = malloc(n * sizeof *a);
	bool ok = f && a;
	for (size_t i = 0; ok && i < nlibs; i++)
		ok = load_funcs(libs[i].debug_path, &f[i]);
	for (size_t i = 0; ok && i < n; i++) {
		uint32_t lib = (uint32_t)(next_random(&seed) % nlibs);
		a[i] = (sb_addr){ .lib = lib, .vaddr = pick(&f[lib], &seed) };
	}
	for (size_t i = 0; f && i < nlibs; i++) {
		free(f[i].v);
		free(f[i].cum);
	}
	free(f);
	if (!ok) {
		free(a);
		return NULL;
	}
	return a;
}
