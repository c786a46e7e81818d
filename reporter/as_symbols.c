/*
 * as_symbols.c — AS-SAFE driver of the in-handler symbolizer: find the
 * images some frame needs, build one table per image from the best source
 * that fits, and name the frames by binary search in it.
 *
 * Memory: only the mapping symbols_setup.c reserved at install, whose head
 * is set up here at its first use.  A table
 * costs its string table plus 16 bytes per kept function: only the symbols
 * that may be the nearest below one of the image's frame addresses are kept
 * (as_symtab_add), so the sort at the end is small even for libc6-dbg's
 * .symtab.  An image whose table does not fit falls back to the next source
 * (see as_symbols_load).
 * Names are copied into the report's arena once per symbol and image, as
 * long as the copy cache remembers them (many threads wait in the same few
 * functions).
 */
#include <errno.h>
#include <string.h>

#include "as_symbols_internal.h"
#include "arena.h"
#include "as_unwind.h"

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

/* The image whose table names frame i, or NULL when the frame needs no name. */
static const pm_as_image *
image_to_name(const pm_as_images *im, const pm_frame *f, uint32_t i)
{
	if (f->symbol || f->image < 0)
		return NULL;
	const pm_as_image *ai = as_image_for(im, pm_frame_lookup_address(f, i));
	return ai && ai->model_index == (uint32_t)f->image ? ai : NULL;
}

static void
mark_wanted(const pm_as_images *im, const pm_frame *f, uint32_t n, uint8_t *wanted)
{
	for (uint32_t i = 0; i < n; i++) {
		const pm_as_image *ai = image_to_name(im, &f[i], i);
		if (ai)
			wanted[ai - im->images] = 1;
	}
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

static void
name_frames(pm_sym_work *s, pm_report *r, const pm_as_images *im, const pm_as_image *ai, pm_frame *f,
            uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (image_to_name(im, &f[i], i) != ai)
			continue;
		const pm_sym *sym = as_symtab_lookup(&s->table, pm_frame_lookup_address(&f[i], i));
		const char *name = sym ? copy_name(s, r->arena, sym) : NULL;
		if (!name)
			continue;
		f[i].symbol = name;
		f[i].symbol_offset = f[i].address - sym->start;
		f[i].has_offset = true;
	}
}

/* The addresses the frames in image ai look up, sorted and distinct, into
 * s->want; without room for them, s->want stays empty (every symbol is kept). */
static void
collect_wanted(pm_sym_work *s, pm_report *r, const pm_as_images *im, const pm_as_image *ai)
{
	pm_sym *pcs = s->want_pcs;
	size_t n = 0;
	s->want = (pm_sym_want){ 0 };
	for (uint64_t k = 0; k <= r->thread_count; k++) {
		uint32_t count;
		const pm_frame *f = frame_list(r, k, &count);
		for (uint32_t i = 0; i < count; i++) {
			if (image_to_name(im, &f[i], i) != ai)
				continue;
			uint64_t pc = pm_frame_lookup_address(&f[i], i);
			if (n > 0 && pcs[n - 1].start == pc)
				continue;
			if (n == s->want_cap)
				return;
			pcs[n++] = (pm_sym){ .start = pc };
		}
	}
	as_symtab_sort(pcs, n);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (distinct == 0 || pcs[distinct - 1].start != pcs[i].start)
			pcs[distinct++] = pcs[i];
	s->want = (pm_sym_want){ .pcs = pcs, .kept = s->want_kept, .count = distinct };
}

static void
name_image(pm_sym_work *s, pm_report *r, const pm_as_images *im, const pm_as_image *ai, const pm_mem *mem)
{
	if (ai->model_index >= r->image_count)
		return;
	collect_wanted(s, r, im, ai);
	if (!as_symbols_load(s, &r->images[ai->model_index], ai, mem))
		return;
	memset(s->copies, 0, sizeof s->copies);
	for (uint64_t k = 0; k <= r->thread_count; k++) {
		uint32_t n;
		pm_frame *f = frame_list(r, k, &n);
		name_frames(s, r, im, ai, f, n);
	}
}

/* The working memory: a flag per image, room for the wanted addresses of the
 * frames (at most a quarter of it), then the area for one table. */
static bool
lay_out(pm_sym_work *s, pm_report *r, size_t images)
{
	size_t flag_bytes = (images + 63) & ~(size_t)63;
	if (flag_bytes > s->work_size)
		return false;
	uint64_t frames = r->leb_count;
	for (uint64_t k = 0; k < r->thread_count; k++)
		frames += r->threads[k].frame_count;
	size_t per = sizeof(pm_sym) + sizeof(uint64_t), fit = (s->work_size - flag_bytes) / 4 / per;
	s->want_cap = frames < fit ? (size_t)frames : fit;
	s->want_pcs = (pm_sym *)(void *)(s->work + flag_bytes);
	s->want_kept = (uint64_t *)(void *)(s->work + flag_bytes + s->want_cap * sizeof(pm_sym));
	s->area = s->work + flag_bytes + s->want_cap * per;
	s->area_size = s->work_size - flag_bytes - s->want_cap * per;
	return true;
}

pm_sym_work *
as_symbols_work(const pm_as_symbols *h)
{
	pm_sym_work *s = h ? h->work : NULL;
	if (s && !s->work) {
		s->work = s->area = (char *)s + PM_SYM_HEAD;
		s->work_size = s->area_size = h->bytes - PM_SYM_HEAD;
	}
	return s;
}

void
as_symbolize(const pm_as_symbols *h, pm_report *r, const pm_as_images *im, const pm_mem *mem)
{
	pm_sym_work *s = as_symbols_work(h);
	if (!s || !r || !im || !mem || !lay_out(s, r, im->count))
		return;
	int saved_errno = errno;
	uint8_t *wanted = (uint8_t *)s->work;
	memset(wanted, 0, im->count);
	for (uint64_t k = 0; k <= r->thread_count; k++) {
		uint32_t n;
		const pm_frame *f = frame_list(r, k, &n);
		mark_wanted(im, f, n, wanted);
	}
	for (size_t i = 0; i < im->count; i++)
		if (wanted[i])
			name_image(s, r, im, &im->images[i], mem);
	errno = saved_errno;
}
