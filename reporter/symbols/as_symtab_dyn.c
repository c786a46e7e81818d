/*
 * as_symtab_dyn.c — AS-SAFE .dynsym of a mapped image, read through pm_mem.
 *
 * Every image ld.so can bind has one, so this is the fallback for stripped
 * files without a debug package, and the only source for the vdso, which
 * has no file.  PT_DYNAMIC gives the tables' addresses.  ld.so relocates
 * them in place for the program and the libraries it loads, but not the
 * vdso's (read-only) dynamic section: an address below the image start is
 * still link-time and gets the bias.  The dynamic section does not give the
 * number of symbols; the hash table does.
 */
#include "as_symbols_internal.h"

enum {
	MAX_DYN = 1024,       /* entries of a dynamic section (real ones have about 40) */
	MAX_SYMS = 1 << 24,   /* symbols of one .dynsym */
	MAX_BUCKETS = 1 << 24,
};

typedef struct dyn_tables {
	uint64_t symtab, strtab, strsz, syment, hash, gnu_hash;
} dyn_tables;

static uint64_t
runtime(const pm_as_image *ai, uint64_t v)
{
	return v < ai->start ? v + ai->bias : v;
}

static bool
read_dynamic(const pm_mem *mem, const pm_as_image *ai, dyn_tables *d)
{
	*d = (dyn_tables){ 0 };
	for (unsigned i = 0; ai->dynamic != 0 && i < MAX_DYN; i++) {
		Elf64_Dyn e;
		if (!pm_mem_read(mem, ai->dynamic + i * sizeof e, &e, sizeof e))
			return false;
		switch (e.d_tag) {
		case DT_NULL:
			return d->symtab && d->strtab && d->strsz && d->syment == sizeof(Elf64_Sym) &&
			       (d->hash || d->gnu_hash);
		case DT_SYMTAB: d->symtab = runtime(ai, e.d_un.d_ptr); break;
		case DT_STRTAB: d->strtab = runtime(ai, e.d_un.d_ptr); break;
		case DT_HASH: d->hash = runtime(ai, e.d_un.d_ptr); break;
		case DT_GNU_HASH: d->gnu_hash = runtime(ai, e.d_un.d_ptr); break;
		case DT_STRSZ: d->strsz = e.d_un.d_val; break;
		case DT_SYMENT: d->syment = e.d_un.d_val; break;
		default: break;
		}
	}
	return false;
}

/* DT_HASH: nchain is the number of symbols. */
static uint64_t
count_from_hash(const pm_mem *mem, uint64_t hash)
{
	uint32_t h[2]; /* nbucket, nchain */
	return pm_mem_read(mem, hash, h, sizeof h) ? h[1] : 0;
}

static bool
max_word(pm_sym_work *s, const pm_mem *mem, uint64_t at, uint32_t n, uint32_t *out)
{
	const uint32_t per_chunk = sizeof s->chunk.words / sizeof s->chunk.words[0];
	*out = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t k = n - i < per_chunk ? n - i : per_chunk;
		if (!pm_mem_read(mem, at + (uint64_t)i * sizeof(uint32_t), s->chunk.words, k * sizeof(uint32_t)))
			return false;
		for (uint32_t j = 0; j < k; j++)
			if (s->chunk.words[j] > *out)
				*out = s->chunk.words[j];
		i += k;
	}
	return true;
}

/* DT_GNU_HASH: the highest symbol index any bucket starts at, then its chain
 * to the entry with the low bit set (the chain's end) is the last symbol. */
static uint64_t
count_from_gnu_hash(pm_sym_work *s, const pm_mem *mem, uint64_t gnu_hash)
{
	uint32_t h[4]; /* nbuckets, symoffset, bloom_size (in 64-bit words), bloom_shift */
	uint32_t last;
	if (!pm_mem_read(mem, gnu_hash, h, sizeof h) || h[0] == 0 || h[0] > MAX_BUCKETS || h[2] > MAX_BUCKETS)
		return 0;
	uint64_t buckets = gnu_hash + sizeof h + (uint64_t)h[2] * sizeof(uint64_t);
	uint64_t chains = buckets + (uint64_t)h[0] * sizeof(uint32_t);
	if (!max_word(s, mem, buckets, h[0], &last))
		return 0;
	if (last < h[1])
		return h[1]; /* no hashed symbols: only the unhashed ones below symoffset */
	for (uint64_t i = last; i < MAX_SYMS; i++) {
		uint32_t w;
		if (!pm_mem_read(mem, chains + (i - h[1]) * sizeof w, &w, sizeof w))
			return 0;
		if (w & 1)
			return i + 1;
	}
	return 0;
}

static bool
read_mem(const void *mem, uint64_t addr, void *dst, size_t n)
{
	return pm_mem_read(mem, addr, dst, n);
}

bool
as_symtab_from_dynamic(pm_sym_work *s, const pm_image *img, const pm_as_image *ai, const pm_mem *mem)
{
	(void)img;
	pm_symtab *t = &s->table;
	dyn_tables d;
	as_symtab_reset(t, ai, &s->want);
	if (!read_dynamic(mem, ai, &d))
		return false;
	uint64_t count = d.hash ? count_from_hash(mem, d.hash) : count_from_gnu_hash(s, mem, d.gnu_hash);
	if (count == 0 || count > MAX_SYMS || !as_symtab_place(t, s->area, s->area_size, d.strsz) ||
	    !as_symtab_fill(t, &s->chunk, d.symtab, count, read_mem, mem))
		return false;
	as_symtab_finish(t, &(pm_sym_names){ .read = read_mem, .ctx = mem, .at = d.strtab });
	return true;
}
