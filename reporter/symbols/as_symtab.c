/*
 * as_symtab.c — AS-SAFE sorted table of one image's function symbols.
 *
 * Kept: STT_FUNC and STT_GNU_IFUNC symbols that are defined (st_shndx is
 * neither SHN_UNDEF nor SHN_ABS), named (st_name is not 0, the empty string,
 * and lies in the string table: the names themselves are read later, for the
 * few entries a lookup can find, so a nonzero st_name that points at a NUL —
 * no linker writes one — counts as a name, which then reads as none), sized,
 * and start inside the image.
 * Size-0 function symbols (hand-written assembly such as glibc's
 * __restore_rt) are dropped: with no extent, the only way to use them is "up
 * to the next symbol", which would also name padding and unrelated code.
 *
 * Aliases: one address often has several names (malloc, __libc_malloc,
 * __malloc and __GI___libc_malloc in libc's .symtab; getpid and __getpid;
 * clock_gettime and __vdso_clock_gettime in the vdso).  One entry is kept
 * per address, named by the first rule that decides:
 *   1. an exported name (global, weak or unique binding) over a local one,
 *      since local aliases are library-internal (__GI_*, *_impl);
 *   2. fewer leading underscores.  Weak does not lose to global: glibc and
 *      the vdso export the public name as a weak alias of a global reserved
 *      one (getpid weak, __getpid global), and the public name is what a
 *      reader knows;
 *   3. the shorter name;
 *   4. byte order, so the choice does not depend on the unstable sort.
 * Symbol versions are ignored ("memcpy@@GLIBC_2.14" in a .symtab is memcpy).
 * The entry keeps the largest size in the group.
 */
#include <string.h>

#include "as_symbols_internal.h"

_Static_assert(sizeof(pm_sym) == 16, "pm_sym is meant to stay 16 bytes");

/* Fill want's buckets over [lo, hi): the smallest power of two of bytes that
 * cuts the span in PM_SYM_WANT_BUCKETS or fewer, and where each one's wanted
 * addresses begin. */
static void
index_wanted(pm_sym_want *w, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi > lo ? hi - lo : 1;
	unsigned shift = 0;
	while (shift < 63 && ((span - 1) >> shift) >= PM_SYM_WANT_BUCKETS)
		shift++;
	w->shift = shift;
	size_t at = 0;
	for (uint64_t b = 0; b < PM_SYM_WANT_BUCKETS; b++) {
		uint64_t from = (b << shift) < span ? lo + (b << shift) : hi;
		while (at < w->count && w->pcs[at].start < from)
			at++;
		w->first[b] = (uint32_t)at;
	}
	w->first[PM_SYM_WANT_BUCKETS] = (uint32_t)w->count;
}

void
as_symtab_reset(pm_symtab *t, const pm_as_image *ai, pm_sym_want *want)
{
	*t = (pm_symtab){ .lo = ai->start, .hi = ai->end, .bias = ai->bias, .want = want && want->pcs ? want : NULL };
	if (t->want) {
		memset(want->kept, 0, want->count * sizeof *want->kept);
		if (want->first)
			index_wanted(want, t->lo, t->hi);
	}
}

bool
as_symtab_place(pm_symtab *t, char *area, size_t size, uint64_t names_len)
{
	/* Name offsets are 31-bit fields. */
	if (names_len >= (UINT64_C(1) << 31))
		return false;
	size_t skip = (size_t)(-(uintptr_t)area & (_Alignof(pm_sym) - 1));
	t->names = NULL;
	t->names_len = (size_t)names_len;
	t->end = area + size;
	t->syms = skip < size ? (pm_sym *)(void *)(area + skip) : NULL;
	t->cap = skip < size ? (size - skip) / sizeof(pm_sym) : 0;
	t->count = 0;
	t->truncated = false;
	return true;
}

static bool
is_function(const Elf64_Sym *y)
{
	unsigned type = ELF64_ST_TYPE(y->st_info);
	return (type == STT_FUNC || type == STT_GNU_IFUNC) && y->st_shndx != SHN_UNDEF &&
	       y->st_shndx != SHN_ABS && y->st_size > 0;
}

static bool
is_named(const pm_symtab *t, const Elf64_Sym *y)
{
	return y->st_name != 0 && y->st_name < t->names_len;
}

size_t
as_sym_lower_bound(const pm_sym *v, size_t n, uint64_t start)
{
	/* Halving without a branch on the comparison (a conditional move): the
	 * filter runs it for every function of libc's .symtab, whose starts
	 * fall left and right of the wanted addresses at random. */
	const pm_sym *base = v;
	if (n == 0)
		return 0;
	while (n > 1) {
		size_t half = n / 2;
		base = base[half - 1].start < start ? base + half : base;
		n -= half;
	}
	return (size_t)(base - v) + (base->start < start);
}

/*
 * Can a symbol starting here be the nearest one at or below a wanted address?
 * Of the symbols whose first wanted address at or after their start is the
 * same, only the greatest start can: one below the greatest seen so far is
 * dropped.  One kept that a greater start later outdoes stays in the table,
 * unused (a lookup takes the nearest start), so a lookup of a wanted address
 * finds exactly what it would in the table of every symbol, aliases included.
 * *at is the place of that first wanted address, where the caller records
 * the start of a symbol it keeps.
 */
/* The first wanted address at or above `start`, which lies in the image:
 * searched among those of its bucket only, when there is an index. */
static size_t
first_wanted(const pm_symtab *t, uint64_t start)
{
	const pm_sym_want *w = t->want;
	if (!w->first)
		return as_sym_lower_bound(w->pcs, w->count, start);
	uint64_t b = (start - t->lo) >> w->shift;
	size_t from = w->first[b], to = w->first[b + 1];
	return from + as_sym_lower_bound(w->pcs + from, to - from, start);
}

static bool
may_name_wanted(const pm_symtab *t, uint64_t start, size_t *at)
{
	const pm_sym_want *w = t->want;
	if (!w)
		return true;
	size_t lo = first_wanted(t, start);
	*at = lo;
	return lo < w->count && start >= w->kept[lo];
}

bool
as_symtab_add(pm_symtab *t, const Elf64_Sym *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *y = &syms[i];
		if (!is_function(y))
			continue;
		uint64_t start = y->st_value + t->bias;
		size_t at = 0;
		if (start < t->lo || start >= t->hi || !may_name_wanted(t, start, &at) || !is_named(t, y))
			continue;
		if (t->want)
			t->want->kept[at] = start;
		if (t->count == t->cap) {
			t->truncated = true;
			return false;
		}
		t->syms[t->count++] = (pm_sym){
			.start = start,
			.size = y->st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)y->st_size,
			.name = y->st_name,
			.local = ELF64_ST_BIND(y->st_info) == STB_LOCAL,
		};
	}
	return true;
}

bool
as_symtab_fill(pm_symtab *t, pm_sym_chunk *chunk, uint64_t at, uint64_t count, pm_sym_reader *read,
               const void *ctx)
{
	const size_t per_chunk = sizeof chunk->syms / sizeof chunk->syms[0];
	for (uint64_t i = 0; i < count;) {
		size_t n = count - i < per_chunk ? (size_t)(count - i) : per_chunk;
		if (!read(ctx, at + i * sizeof(Elf64_Sym), chunk->syms, n * sizeof(Elf64_Sym))) {
			t->truncated = true;
			break;
		}
		if (!as_symtab_add(t, chunk->syms, n))
			break;
		i += n;
	}
	return t->count > 0;
}

const char *
as_symtab_name(const pm_symtab *t, const pm_sym *sym, size_t *len)
{
	const char *p = t->names + sym->name;
	size_t n = 0;
	/* The NUL after the string table bounds this. */
	while (p[n] != '\0' && !(p[n] == '@' && n > 0))
		n++;
	*len = n;
	return p;
}

static size_t
leading_underscores(const char *p, size_t n)
{
	size_t k = 0;
	while (k < n && p[k] == '_')
		k++;
	return k;
}

/* True when a names the address better than b (rules at the top of this
 * file; a name that could not be read loses to any other). */
static bool
better_alias(const pm_symtab *t, const pm_sym *a, const pm_sym *b)
{
	size_t la, lb;
	const char *na = as_symtab_name(t, a, &la), *nb = as_symtab_name(t, b, &lb);
	if ((la == 0) != (lb == 0))
		return lb == 0;
	if (a->local != b->local)
		return !a->local;
	size_t ua = leading_underscores(na, la), ub = leading_underscores(nb, lb);
	if (ua != ub)
		return ua < ub;
	if (la != lb)
		return la < lb;
	return memcmp(na, nb, la) < 0;
}

static void
fold_aliases(pm_symtab *t)
{
	size_t out = 0, i = 0;
	while (i < t->count) {
		pm_sym best = t->syms[i];
		size_t j = i + 1;
		for (; j < t->count && t->syms[j].start == best.start; j++) {
			uint32_t size = best.size > t->syms[j].size ? best.size : t->syms[j].size;
			if (better_alias(t, &t->syms[j], &best))
				best = t->syms[j];
			best.size = size;
		}
		t->syms[out++] = best;
		i = j;
	}
	t->count = out;
}

/* Drop the entries that a greater start with the same first wanted address
 * outdid after they were kept (see may_name_wanted): what stays is, per
 * wanted address, the group of the nearest start at or below it, the only
 * entries a lookup of a wanted address finds, so the only names to read,
 * and the sort sees no more. */
static void
drop_outdone(pm_symtab *t)
{
	const pm_sym_want *w = t->want;
	size_t out = 0;
	for (size_t i = 0; i < t->count; i++)
		if (t->syms[i].start >= w->kept[first_wanted(t, t->syms[i].start)])
			t->syms[out++] = t->syms[i];
	t->count = out;
}

void
as_symtab_finish(pm_symtab *t, const pm_sym_names *names)
{
	if (t->want)
		drop_outdone(t);
	as_symtab_sort(t->syms, t->count);
	as_symtab_read_names(t, names);
	fold_aliases(t);
}

const pm_sym *
as_symtab_lookup(const pm_symtab *t, uint64_t addr)
{
	/* Find the first entry that starts after addr; the one before is the candidate. */
	size_t lo = 0, hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const pm_sym *sym = &t->syms[lo - 1];
	return addr - sym->start < sym->size ? sym : NULL;
}
