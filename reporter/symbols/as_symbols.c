/*
 * as_symbols.c — AS-SAFE driver of the in-handler symbolizer: collect the
 * distinct addresses the frames look up, build one table per image from
 * the best source that fits, answer each address once by binary search in
 * it, then give every frame its address's answer.
 *
 * Memory: only the mapping symbols_setup.c reserved at install, whose head
 * is set up here at its first use.  A table costs 16 bytes per kept
 * function plus the names it needs: only the symbols that may be the
 * nearest below one of the image's addresses are kept (as_symtab_add), so
 * the sort at the end is small even for libc6-dbg's .symtab.  An image
 * whose table does not fit falls back to the next source (see
 * as_symbols_load).
 * Frames are walked twice whatever the number of images (1025 threads of 30
 * frames are 30,000 frames, mostly at the same few addresses): once to
 * collect, once to name.  Names are copied into the report's arena once per
 * symbol and image, as long as the copy cache remembers them.
 */
#include "as_symbols_internal.h"

#include <errno.h>
#include <string.h>

#include "as_memory.h"
#include "model.h"

bool
as_symbols_load(pm_sym_work *s, const pm_image *img, const pm_as_image *ai, const pm_mem *mem)
{
	static pm_symtab_source *const sources[] = {
		as_symtab_from_image_file,
		as_symtab_from_debug_file,
		as_symtab_from_dynamic,
	};
	enum { N = sizeof sources / sizeof sources[0] };
	size_t partial = N;
	for (size_t i = 0; i < N; i++) {
		if (!sources[i](s, img, ai, mem))
			continue;
		if (!s->table.truncated)
			return true;
		if (partial == N)
			partial = i;
	}
	/* No source fit whole: rebuild the most preferred partial table. */
	return partial < N && sources[partial](s, img, ai, mem);
}

/* Slots of the direct-mapped memory of addresses already collected. */
enum { SEEN_SLOTS = 1024 };

/* What a looked-up address is named: a name in the report's arena (NULL:
 * none) and the start of its symbol. */
typedef struct found_name {
	const char *name;
	uint64_t start;
} found_name;

/* One capture's naming, in the working memory (see lay_out). */
typedef struct naming {
	pm_sym_work *s;
	pm_report *r;
	const pm_as_images *im;
	const pm_mem *mem;
	uint8_t *wanted;      /* per scanned image: some frame needs a name from it */
	uint32_t *by_model;   /* per report image: 1 + its index among the scanned ones, 0: none */
	uint32_t *seen;       /* SEEN_SLOTS: an address's slot, 1 + its index in pcs */
	pm_sym *pcs;          /* the distinct addresses looked up, sorted (in .start) */
	uint64_t *kept;       /* per address, for pm_sym_want */
	found_name *found;    /* per address, its answer */
	size_t count, cap;
	bool overflow;        /* more addresses than cap: every table keeps every symbol */
} naming;

/* Frame list k of r: the threads' in order, then (k == thread_count) the last exception backtrace. */
static pm_frame *
frame_list(pm_report *r, uint64_t k, uint32_t *n)
{
	pm_frame *f = k < r->thread_count ? r->threads[k].frames : r->last_exception_backtrace;
	*n = k < r->thread_count ? r->threads[k].frame_count : r->leb_count;
	if (!f)
		*n = 0;
	return f;
}

/* The scanned image whose table names frame i, or NULL when the frame needs no name. */
static const pm_as_image *
image_to_name(const naming *n, const pm_frame *f, uint32_t i)
{
	if (f->symbol || f->image < 0 || (uint32_t)f->image >= n->r->image_count || !n->by_model[f->image])
		return NULL;
	const pm_as_image *ai = &n->im->images[n->by_model[f->image] - 1];
	uint64_t pc = pm_frame_lookup_address(f, i);
	return pc >= ai->start && pc < ai->end ? ai : NULL;
}

static size_t
seen_slot(uint64_t pc)
{
	return (size_t)((pc * UINT64_C(0x9e3779b97f4a7c15)) >> 54) & (SEEN_SLOTS - 1);
}

/* The first of the sorted addresses at or above pc. */
static size_t
lower_bound(const naming *n, uint64_t pc)
{
	return as_sym_lower_bound(n->pcs, n->count, pc);
}

/* Whether frame i of a list is looked up as frame i of the list before it
 * (prev, of prev_count frames) was: the same address, kind, image and name
 * given.  Threads stopped where the one before them is (a pool's workers)
 * repeat their frames depth for depth: comparing with the frame before
 * costs less than the seen slots. */
static bool
repeats(const pm_frame *prev, uint32_t prev_count, const pm_frame *f, uint32_t i)
{
	return i < prev_count && prev[i].address == f[i].address && prev[i].how == f[i].how &&
	       prev[i].image == f[i].image && prev[i].symbol == f[i].symbol;
}

/* Flag the images frames need and collect the distinct addresses they look
 * up, sorted.  Threads stopped in the same functions repeat the same
 * addresses: the seen slots drop most repeats before the sort. */
static void
collect(naming *n)
{
	const pm_frame *prev = NULL;
	uint32_t prev_count = 0;
	for (uint64_t k = 0; k <= n->r->thread_count; k++) {
		uint32_t count;
		const pm_frame *f = frame_list(n->r, k, &count);
		for (uint32_t i = 0; i < count; i++) {
			if (repeats(prev, prev_count, f, i))
				continue; /* collected with the list before */
			const pm_as_image *ai = image_to_name(n, &f[i], i);
			if (!ai)
				continue;
			n->wanted[ai - n->im->images] = 1;
			uint64_t pc = pm_frame_lookup_address(&f[i], i);
			uint32_t *slot = &n->seen[seen_slot(pc)];
			if (*slot && n->pcs[*slot - 1].start == pc)
				continue;
			if (n->count == n->cap) {
				n->overflow = true;
				continue;
			}
			n->pcs[n->count] = (pm_sym){ .start = pc };
			*slot = (uint32_t)++n->count;
		}
		prev = f;
		prev_count = count;
	}
	if (n->overflow)
		n->count = 0;
	as_symtab_sort(n->pcs, n->count);
	size_t distinct = 0;
	for (size_t i = 0; i < n->count; i++)
		if (distinct == 0 || n->pcs[distinct - 1].start != n->pcs[i].start)
			n->pcs[distinct++] = n->pcs[i];
	n->count = distinct;
	/* From here a slot holds an index among the sorted addresses. */
	memset(n->seen, 0, SEEN_SLOTS * sizeof *n->seen);
}

static const char *
copy_name(pm_sym_work *s, pm_arena *a, const pm_sym *sym)
{
	pm_sym_copy *c = &s->copies[(size_t)(sym - s->table.syms) % PM_SYM_COPY_CACHE];
	if (c->sym != sym) {
		size_t len;
		const char *name = as_symtab_name(&s->table, sym, &len);
		if (len == 0)
			return NULL; /* its name could not be read */
		const char *copy = pmi_arena_strndup(a, name, len < PM_SYM_NAME_MAX ? len : PM_SYM_NAME_MAX);
		if (!copy)
			return NULL;
		*c = (pm_sym_copy){ .sym = sym, .name = copy };
	}
	return c->name;
}

/* pc's answer in the current image's table. */
static found_name
look_up(const naming *n, uint64_t pc)
{
	const pm_sym *sym = as_symtab_lookup(&n->s->table, pc);
	const char *name = sym ? copy_name(n->s, n->r->arena, sym) : NULL;
	return name ? (found_name){ .name = name, .start = sym->start } : (found_name){ 0 };
}

/* pc's answer among the collected addresses (none when it is not one). */
static found_name
collected_answer(const naming *n, uint64_t pc)
{
	uint32_t *slot = &n->seen[seen_slot(pc)];
	size_t at = *slot && n->pcs[*slot - 1].start == pc ? *slot - 1 : lower_bound(n, pc);
	if (at == n->count || n->pcs[at].start != pc)
		return (found_name){ 0 };
	*slot = (uint32_t)at + 1;
	return n->found[at];
}

/* Name the frames: from the collected answers, or (table_of, when the
 * addresses did not fit) those in image table_of straight from its table. */
static void
name_frames(const naming *n, const pm_as_image *table_of)
{
	for (uint64_t k = 0; k <= n->r->thread_count; k++) {
		uint32_t count;
		pm_frame *f = frame_list(n->r, k, &count);
		for (uint32_t i = 0; i < count; i++) {
			const pm_as_image *ai = image_to_name(n, &f[i], i);
			if (!ai || (table_of && ai != table_of))
				continue;
			uint64_t pc = pm_frame_lookup_address(&f[i], i);
			found_name got = table_of ? look_up(n, pc) : collected_answer(n, pc);
			if (!got.name)
				continue;
			f[i].symbol = got.name;
			f[i].symbol_offset = f[i].address - got.start;
			f[i].has_offset = true;
		}
	}
}

/* Build image ai's table for its collected addresses [lo, hi) and answer them. */
static void
name_image(naming *n, const pm_as_image *ai, size_t lo, size_t hi)
{
	pm_sym_work *s = n->s;
	for (size_t k = lo; k < hi; k++)
		n->found[k] = (found_name){ 0 };
	s->want = n->overflow ? (pm_sym_want){ 0 }
	                      : (pm_sym_want){ .pcs = n->pcs + lo, .kept = n->kept, .count = hi - lo, .first = s->want_first };
	if (!as_symbols_load(s, &n->r->images[ai->model_index], ai, n->mem))
		return;
	memset(s->copies, 0, sizeof s->copies);
	for (size_t k = lo; k < hi; k++)
		n->found[k] = look_up(n, n->pcs[k].start);
	if (n->overflow)
		name_frames(n, ai);
}

static size_t
align64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/* The working memory: the flags, the way from report images to scanned
 * ones, the seen slots, room for the addresses (at most a quarter of it),
 * then the area for one table. */
static bool
lay_out(naming *n)
{
	pm_sym_work *s = n->s;
	size_t flags = align64(n->im->count), models = align64(n->r->image_count * sizeof(uint32_t));
	size_t fixed = flags + models + SEEN_SLOTS * sizeof(uint32_t);
	if (fixed > s->work_size)
		return false;
	uint64_t frames = n->r->leb_count;
	for (uint64_t k = 0; k < n->r->thread_count; k++)
		frames += n->r->threads[k].frame_count;
	size_t per = sizeof(pm_sym) + sizeof(uint64_t) + sizeof(found_name), fit = (s->work_size - fixed) / 4 / per;
	n->cap = frames < fit ? (size_t)frames : fit;
	char *p = s->work;
	n->wanted = (uint8_t *)p;
	n->by_model = (uint32_t *)(void *)(p += flags);
	n->seen = (uint32_t *)(void *)(p += models);
	n->pcs = (pm_sym *)(void *)(p += SEEN_SLOTS * sizeof(uint32_t));
	n->kept = (uint64_t *)(void *)(p += n->cap * sizeof(pm_sym));
	n->found = (found_name *)(void *)(p += n->cap * sizeof(uint64_t));
	s->area = p + n->cap * sizeof(found_name);
	s->area_size = s->work_size - fixed - n->cap * per;
	memset(n->wanted, 0, flags + models + SEEN_SLOTS * sizeof(uint32_t));
	for (size_t i = 0; i < n->im->count; i++)
		if (n->im->images[i].model_index < n->r->image_count)
			n->by_model[n->im->images[i].model_index] = (uint32_t)i + 1;
	return true;
}

pm_sym_work *
as_symbols_work(const pm_as_symbols *h)
{
	pm_sym_work *s = h ? h->work : NULL;
	if (s && !s->work) {
		/* Every page of the head (most of it the read buffer) is written by
		 * the first table, and so is the start of the working memory (the
		 * seen slots lay_out zeroes at every naming, then the first table's
		 * first page): one call instead of a fault each. */
		as_sys_populate(s, PM_SYM_HEAD + SEEN_SLOTS * sizeof(uint32_t) + 4096);
		s->work = s->area = (char *)s + PM_SYM_HEAD;
		s->work_size = s->area_size = h->bytes - PM_SYM_HEAD;
	}
	return s;
}

void
as_symbolize(const pm_as_symbols *h, pm_report *r, const pm_as_images *im, const pm_mem *mem)
{
	pm_sym_work *s = as_symbols_work(h);
	naming n = { .s = s, .r = r, .im = im, .mem = mem };
	if (!s || !r || !im || !mem || !lay_out(&n))
		return;
	int saved_errno = errno;
	collect(&n);
	/* Images and addresses both ascend: each image's addresses are a run. */
	for (size_t i = 0; i < im->count; i++) {
		const pm_as_image *ai = &im->images[i];
		if (n.wanted[i])
			name_image(&n, ai, lower_bound(&n, ai->start), lower_bound(&n, ai->end));
	}
	if (!n.overflow)
		name_frames(&n, NULL);
	errno = saved_errno;
}
