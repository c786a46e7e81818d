/*
 * read_text_images.c — Binary Images lines (format reference §9) and, once
 * everything is read, pointing each frame at its image.
 *
 * After the range and the optional '+', a line reads
 *   name [arch] [(version | arch)] <build id> path
 * where the name may hold spaces ("App Namespace arm64  <…>"), so the arch is
 * recognised by its spelling and whatever precedes it is the name.
 */
#include "model.h"
#include "read_text.h"

#include <stdlib.h>
#include <string.h>

/* How Apple and third parties spell architectures; "unknown-arch" is the placeholder's. */
static const char *const arch_prefixes[] = { "arm", "x86", "i386", "i486", "i586", "i686", "ppc" };

static bool
is_arch(tx_span s)
{
	if (pmi_tx_eq(s, "unknown-arch"))
		return true;
	for (size_t i = 0; i < s.n; i++)
		if (!((s.p[i] >= 'a' && s.p[i] <= 'z') || pmi_tx_is_digit(s.p[i]) || s.p[i] == '_'))
			return false;
	for (size_t i = 0; i < sizeof arch_prefixes / sizeof arch_prefixes[0]; i++)
		if (pmi_tx_starts(s, arch_prefixes[i]))
			return true;
	return false;
}

/*
 * Hex digits of a UUID (dashes allowed) or ELF build id; an all-zero id means none.
 * A Linux report's 16-byte id is the debug id postmortem writes: its first 16
 * build id bytes, swapped back (docs/identifiers.md).  Longer ones are full build
 * ids from reports written before debug ids.
 */
static void
read_build_id(pm_image *im, tx_span s, uint8_t os)
{
	uint8_t id[PM_BUILD_ID_MAX];
	size_t digits = 0;
	bool nonzero = false;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '-')
			continue;
		if (!pmi_tx_is_hex(s.p[i]) || digits == 2 * PM_BUILD_ID_MAX)
			return;
		unsigned v = pmi_tx_hex_value(s.p[i]);
		id[digits / 2] = (uint8_t)(digits % 2 ? id[digits / 2] << 4 | v : v);
		nonzero |= v != 0;
		digits++;
	}
	if (digits % 2 || !nonzero)
		return;
	if (os == PM_OS_LINUX && digits == 32)
		pmi_guid_swap(id);
	memcpy(im->build_id, id, digits / 2);
	im->build_id_len = (uint8_t)(digits / 2);
}

/* Undo write_image_path: "/[vdso]" is the pseudo-file "[vdso]", "/???" unknown. */
static const char *
read_path(pm_arena *a, tx_span path)
{
	if (pmi_tx_starts(path, "/[") || pmi_tx_eq(path, "/???"))
		path = pmi_tx_tail(path, 1);
	return pmi_tx_copy_known(a, path);
}

/* "name [arch] [(version|arch)]" */
static void
read_name(pm_arena *a, pm_image *im, tx_span mid)
{
	tx_span arch = { 0 }, version = { 0 };
	size_t open = pmi_tx_rfind_char(mid, '(');
	if (open < mid.n && mid.p[mid.n - 1] == ')') {
		tx_span inner = pmi_tx_span(mid.p + open + 1, mid.n - open - 2);
		if (is_arch(inner))
			arch = inner;
		else
			version = inner;
		mid = pmi_tx_rtrim(pmi_tx_head(mid, open));
	}
	size_t sp = pmi_tx_rfind_char(mid, ' ');
	if (!arch.n && sp < mid.n && is_arch(pmi_tx_tail(mid, sp + 1))) {
		arch = pmi_tx_tail(mid, sp + 1);
		mid = pmi_tx_rtrim(pmi_tx_head(mid, sp));
	}
	im->name = pmi_tx_copy_known(a, mid);
	im->arch = pmi_tx_eq(arch, "unknown-arch") ? NULL : pmi_tx_copy(a, arch);
	/* "(*)" and "(???)" say the version is unknown. */
	im->version = pmi_tx_eq(version, "*") ? NULL : pmi_tx_copy_known(a, version);
}

static void
describe(pm_arena *a, pm_image *im, tx_span s, uint8_t os)
{
	im->is_app = pmi_tx_skip(&s, "+");
	tx_span mid, path;
	size_t lt = pmi_tx_find_char(s, '<');
	if (lt < s.n) {
		tx_span rest = pmi_tx_tail(s, lt + 1);
		size_t gt = pmi_tx_find_char(rest, '>');
		read_build_id(im, pmi_tx_head(rest, gt), os);
		mid = pmi_tx_trim(pmi_tx_head(s, lt));
		path = pmi_tx_trim(pmi_tx_tail(rest, gt + 1));
	} else {
		/* No build id: the path is what starts with a slash. */
		size_t slash = pmi_tx_find(s, " /");
		mid = pmi_tx_trim(pmi_tx_head(s, slash));
		path = pmi_tx_trim(pmi_tx_tail(s, slash));
	}
	read_name(a, im, mid);
	im->path = read_path(a, path);
}

static pm_image *
image_slot(tx_parser *p)
{
	pm_report *r = p->r;
	if (r->image_count >= TX_MAX_IMAGES) {
		r->images_truncated = true;
		return NULL;
	}
	pm_image *n = pmi_tx_grow(r->arena, r->images, r->image_count, &p->image_cap, sizeof *n);
	if (!n)
		return NULL;
	r->images = n;
	return &n[r->image_count++];
}

bool
pmi_tx_image_line(tx_parser *p, tx_span t)
{
	uint64_t start, end;
	tx_span s = t;
	if (!pmi_tx_take_hex(&s, &start))
		return false;
	s = pmi_tx_ltrim(s);
	if (!pmi_tx_skip(&s, "-"))
		return false;
	s = pmi_tx_ltrim(s);
	if (!pmi_tx_take_hex(&s, &end) || end < start || (s.n && !pmi_tx_is_space(s.p[0])))
		return false;
	pm_image *im = image_slot(p);
	if (!im)
		return true;
	im->start = start;
	/* The range is inclusive; the size-0 placeholder "0x0 - 0xffffffffffffffff" wraps to 0. */
	im->size = end - start + 1;
	describe(p->r->arena, im, pmi_tx_ltrim(s), p->r->os);
	return true;
}

/* ---- frame -> image --------------------------------------------------------- */

typedef struct by_start {
	uint64_t start;
	uint32_t idx;
} by_start;

typedef struct by_name {
	const char *name;
	uint32_t idx;
} by_name;

/* Sorted views of the images, so resolving stays fast with thousands of frames. */
typedef struct image_index {
	by_start *starts;
	size_t nstarts;
	by_name *names;
	size_t nnames;
} image_index;

static int
cmp_start(const void *a, const void *b)
{
	const by_start *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
cmp_name(const void *a, const void *b)
{
	const by_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool
build_index(const pm_report *r, image_index *ix)
{
	ix->starts = malloc(r->image_count * sizeof *ix->starts);
	ix->names = malloc(r->image_count * sizeof *ix->names);
	if (!ix->starts || !ix->names)
		return false;
	for (uint32_t i = 0; i < r->image_count; i++) {
		if (r->images[i].size)
			ix->starts[ix->nstarts++] = (by_start){ r->images[i].start, i };
		if (r->images[i].name)
			ix->names[ix->nnames++] = (by_name){ r->images[i].name, i };
	}
	qsort(ix->starts, ix->nstarts, sizeof *ix->starts, cmp_start);
	qsort(ix->names, ix->nnames, sizeof *ix->names, cmp_name);
	/* Images sharing a load address: the first listed stands for them all. */
	size_t kept = 0;
	for (size_t i = 0; i < ix->nstarts; i++)
		if (kept == 0 || ix->starts[kept - 1].start != ix->starts[i].start)
			ix->starts[kept++] = ix->starts[i];
	ix->nstarts = kept;
	return true;
}

/* The image whose range holds the address, else the one named like the frame's column. */
static int32_t
lookup(const pm_report *r, const image_index *ix, const pm_frame *f)
{
	size_t lo = 0, hi = ix->nstarts;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->starts[mid].start <= f->address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const pm_image *im = &r->images[ix->starts[lo - 1].idx];
		if (f->address - im->start < im->size)
			return (int32_t)ix->starts[lo - 1].idx;
	}
	if (!f->image_name)
		return -1;
	lo = 0;
	hi = ix->nnames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix->names[mid].name, f->image_name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nnames && strcmp(ix->names[lo].name, f->image_name) == 0)
		return (int32_t)ix->names[lo].idx;
	return -1;
}

static void
resolve(const pm_report *r, const image_index *ix, pm_frame *frames, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		frames[i].image = lookup(r, ix, &frames[i]);
		if (frames[i].image >= 0)
			frames[i].image_name = NULL;
	}
}

bool
pmi_tx_resolve_frames(pm_report *r)
{
	if (r->image_count == 0)
		return true;
	image_index ix = { 0 };
	bool ok = build_index(r, &ix);
	if (ok) {
		for (uint32_t t = 0; t < r->thread_count; t++)
			resolve(r, &ix, r->threads[t].frames, r->threads[t].frame_count);
		resolve(r, &ix, r->last_exception_backtrace, r->leb_count);
	}
	free(ix.starts);
	free(ix.names);
	return ok;
}
