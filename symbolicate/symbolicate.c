/*
 * symbolicate.c — pm_symbolicate: walk a report's frames image by image and
 * replace each physical frame with the frames its debug information gives.
 *
 * A physical frame is a run of frames marked inlined followed by the frame
 * they were inlined into (a report symbolicated before has such runs); it is
 * replaced whole, so symbolicating twice gives the same report.  Images are
 * opened one at a time and closed before the next, so memory stays bounded
 * by the largest image however many a report lists, and each debug file is
 * opened once per report.  An image whose pre-parsed table (table.c) lies
 * in a debug dir is answered from the table, without its debug file; one
 * that no local file serves is asked of debuginfod (debuginfod.c) when the
 * options say so.  New frame arrays come from the report's arena;
 * the old ones stay there unused until the report is freed.
 */
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "group.h"
#include "model.h"
#include "symb.h"

typedef struct group {
	uint32_t first, count;   /* in the original list */
	size_t res_first;        /* in run.results */
	size_t res_count;        /* 0: keep the original frames */
} group;

typedef struct list {
	pm_frame **frames;       /* the report's pointer to the array */
	uint32_t *count;
	group *groups;
	size_t group_count;
	bool changed;
} list;

typedef struct run {
	pm_report *r;
	uint32_t threads, images; /* the counts, 0 when the report has no array */
	list *lists;
	size_t list_count;
	pm_sy_locs results;
	pm_sy_remote remote;
	bool nomem;
} run;

static bool
split_groups(list *l)
{
	pm_frame *f = *l->frames;
	uint32_t n = f ? *l->count : 0;
	l->groups = calloc(n ? n : 1, sizeof *l->groups);
	if (!l->groups)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		group *g = &l->groups[l->group_count];
		if (g->count == 0)
			g->first = i;
		g->count++;
		if (!f[i].inlined || i + 1 == n)
			l->group_count++;
	}
	return true;
}

static bool
make_lists(run *ru)
{
	pm_report *r = ru->r;
	ru->list_count = (size_t)ru->threads + 1;
	ru->lists = calloc(ru->list_count, sizeof *ru->lists);
	if (!ru->lists)
		return false;
	for (size_t k = 0; k < ru->list_count; k++) {
		list *l = &ru->lists[k];
		bool leb = k == ru->threads;
		l->frames = leb ? &r->last_exception_backtrace : &r->threads[k].frames;
		l->count = leb ? &r->leb_count : &r->threads[k].frame_count;
		if (!split_groups(l))
			return false;
	}
	return true;
}

static const pm_frame *
outermost(const list *l, const group *g)
{
	return &(*l->frames)[g->first + g->count - 1];
}

static bool
in_image(const list *l, const group *g, uint32_t image)
{
	return outermost(l, g)->image >= 0 && (uint32_t)outermost(l, g)->image == image;
}

/* A new frame: what the report knew (address, image, how; for the outermost
 * frame also the name when debug information has none) with what
 * symbolication found. */
static pm_frame
new_frame(const pm_frame *from, const pm_sy_loc *loc, bool is_outer)
{
	pm_frame f = *from;
	f.file = loc->file;
	f.line = loc->line;
	f.column = loc->column;
	f.inlined = loc->inlined;
	if (loc->symbol || !is_outer) {
		f.symbol = loc->symbol;
		f.symbol_offset = loc->symbol_offset;
		f.has_offset = loc->has_offset;
	}
	return f;
}

/* Where an image's answers come from: its DWARF and symbols, or a pre-parsed table. */
typedef struct source {
	pm_sy_module *m;
	const pm_sy_table *table;
	uint64_t bias;
	pm_sy_strings *strings;
} source;

static void
resolve_group(run *ru, const source *src, list *l, size_t index, group *g)
{
	const pm_frame *f = outermost(l, g);
	size_t first = ru->results.len;
	uint64_t lookup = pm_frame_lookup_address(f, (uint32_t)index);
	pm_sy_result res = src->table ? pmi_sy_table_resolve(src->table, src->bias, f->address, lookup, src->strings,
	                                                    &ru->results)
	                              : pmi_sy_resolve(src->m, f->address, lookup, &ru->results);
	if (res == PM_SY_NOMEM) {
		ru->nomem = true;
		ru->results.len = first;
		return;
	}
	if (res != PM_SY_FOUND)
		return;
	g->res_first = first;
	g->res_count = ru->results.len - first;
	l->changed = true;
}

static const char *
joined_note(pm_arena *a, const char *note, const char *why)
{
	if (!why[0])
		return pmi_arena_strdup(a, note);
	if (!note)
		return pmi_arena_strdup(a, why);
	size_t n = strlen(note) + strlen(why) + 3;
	char *s = pmi_arena_alloc(a, n, 1);
	if (s)
		snprintf(s, n, "%s; %s", note, why);
	return s;
}

static void
resolve_image(run *ru, uint32_t image, const source *src)
{
	for (size_t k = 0; k < ru->list_count; k++) {
		list *l = &ru->lists[k];
		for (size_t i = 0; i < l->group_count && !ru->nomem; i++)
			if (in_image(l, &l->groups[i], image))
				resolve_group(ru, src, l, i, &l->groups[i]);
	}
}

/* DIR/<id>.pmsym for the image's id; for a debug id alone (a .crash read
 * without its twin), the one table whose build id starts with it. */
static bool
table_path(const char *dir, const pm_image *img, char *path, size_t cap)
{
	char hex[2 * PM_BUILD_ID_MAX + 1];
	pmi_sy_hex(img->build_id, img->build_id_len, hex);
	if ((size_t)snprintf(path, cap, "%s/%s.pmsym", dir, hex) >= cap)
		return false;
	if (img->build_id_len != 16 || access(path, F_OK) == 0)
		return true;
	DIR *d = opendir(dir);
	if (!d)
		return true;
	size_t n = strlen(hex);
	const struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len > n + 6 && strncmp(e->d_name, hex, n) == 0 && strcmp(e->d_name + len - 6, ".pmsym") == 0) {
			bool fits = (size_t)snprintf(path, cap, "%s/%s", dir, e->d_name) < cap;
			closedir(d);
			return fits;
		}
	}
	closedir(d);
	return true;
}

/* A table DIR/<id>.pmsym of the image in some debug dir: true when it answered for the image.
 * One with another id is refused and named in *refused. */
static bool
from_table(run *ru, uint32_t image, const pm_symbolicate_options *opt, char *refused, size_t cap)
{
	pm_image *img = &ru->r->images[image];
	for (size_t i = 0; img->build_id_len && opt && i < opt->debug_dir_count; i++) {
		char path[4096], why[256] = "";
		pm_sy_table t;
		if (!opt->debug_dirs[i] || !table_path(opt->debug_dirs[i], img, path, sizeof path))
			continue;
		int err = pmi_sy_table_open(&t, path, why, sizeof why);
		if (err == ENOENT || err == ENOTDIR)
			continue;
		if (!err && !pmi_sy_same_id(img->build_id, img->build_id_len, t.id, t.id_len)) {
			char got[2 * PM_BUILD_ID_MAX + 1];
			pmi_sy_hex(t.id, t.id_len, got);
			snprintf(why, sizeof why, "id mismatch: the table holds %s", got);
			pmi_sy_table_close(&t);
			err = EINVAL;
		}
		if (err) {
			size_t n = strlen(refused);
			if (snprintf(refused + n, cap - n, "%s%s: %s", n ? "; " : "", path, why) < 0)
				refused[n] = '\0';
			continue;
		}
		pm_sy_strings strings = { .arena = ru->r->arena };
		source src = { .table = &t, .bias = img->start - t.base, .strings = &strings };
		resolve_image(ru, image, &src);
		img->debug_file = pmi_arena_strdup(ru->r->arena, path);
		img->note = refused[0] ? pmi_arena_strdup(ru->r->arena, refused) : NULL;
		pmi_sy_strings_free(&strings);
		pmi_sy_table_close(&t);
		return true;
	}
	return false;
}

static void
symbolicate_image(run *ru, uint32_t image, const pm_symbolicate_options *opt)
{
	pm_image *img = &ru->r->images[image];
	char refused[1024] = "";
	if (from_table(ru, image, opt, refused, sizeof refused))
		return;
	bool macho = ru->r->os == PM_OS_DARWIN;
	pm_sy_files files;
	if (!pmi_sy_find_files(img, macho, opt, &ru->remote, &files)) {
		ru->nomem = true;
		return;
	}
	pm_sy_module m;
	char why[512] = "";
	bool usable = files.elf_path && (macho ? pmi_sy_macho_module_open : pmi_sy_module_open)(
		&m, img, &files, ru->r->arena, why, sizeof why);
	img->debug_file = usable && m.dwarf ? pmi_arena_strdup(ru->r->arena, files.dwarf_path) : NULL;
	/* Refused tables first, then the search's own notes. */
	const char *found = refused[0] ? joined_note(ru->r->arena, refused, files.note ? files.note : "") : files.note;
	img->note = joined_note(ru->r->arena, found, why);
	if (usable) {
		source src = { .m = &m };
		resolve_image(ru, image, &src);
		pmi_sy_module_close(&m);
	}
	pmi_sy_files_free(&files);
}

static bool
rebuild(run *ru, list *l)
{
	size_t total = 0;
	for (size_t i = 0; i < l->group_count; i++)
		total += l->groups[i].res_count ? l->groups[i].res_count : l->groups[i].count;
	if (total > UINT32_MAX)
		return false;
	pm_frame *v = pmi_arena_alloc(ru->r->arena, total * sizeof *v, _Alignof(pm_frame));
	if (!v)
		return false;
	size_t at = 0;
	for (size_t i = 0; i < l->group_count; i++) {
		const group *g = &l->groups[i];
		if (!g->res_count) {
			memcpy(&v[at], &(*l->frames)[g->first], g->count * sizeof *v);
			at += g->count;
			continue;
		}
		for (size_t k = 0; k < g->res_count; k++)
			v[at++] = new_frame(outermost(l, g), &ru->results.v[g->res_first + k], k + 1 == g->res_count);
	}
	*l->frames = v;
	*l->count = (uint32_t)total;
	return true;
}

/* Images some frame lies in, each once: wanted[i] is set for image i. */
static bool *
wanted_images(const run *ru)
{
	bool *wanted = calloc(ru->images ? ru->images : 1, sizeof *wanted);
	for (size_t k = 0; wanted && k < ru->list_count; k++) {
		const list *l = &ru->lists[k];
		for (size_t i = 0; i < l->group_count; i++) {
			int32_t image = outermost(l, &l->groups[i])->image;
			if (image >= 0 && (uint32_t)image < ru->images)
				wanted[image] = true;
		}
	}
	return wanted;
}

static void
run_free(run *ru)
{
	for (size_t k = 0; ru->lists && k < ru->list_count; k++)
		free(ru->lists[k].groups);
	free(ru->lists);
	free(ru->results.v);
	pmi_sy_remote_end(&ru->remote);
}

pm_err
pm_symbolicate(pm_report *r, const pm_symbolicate_options *opt)
{
	if (!r || (opt && opt->debug_dir_count && !opt->debug_dirs))
		return PM_E_INVAL;
	/* Names change: the report keeps the group its names as captured gave (docs/grouping.md). */
	if (!pmi_group_keep(r))
		return PM_E_NOMEM;
	elf_version(EV_CURRENT);
	run ru = { .r = r, .threads = r->threads ? r->thread_count : 0, .images = r->images ? r->image_count : 0 };
	pmi_sy_remote_init(&ru.remote, opt);
	bool was_exhausted = pmi_arena_exhausted(r->arena), *wanted = NULL;
	if (!make_lists(&ru) || !(wanted = wanted_images(&ru))) {
		run_free(&ru);
		return PM_E_NOMEM;
	}
	for (uint32_t i = 0; i < ru.images && !ru.nomem; i++)
		if (wanted[i])
			symbolicate_image(&ru, i, opt);
	for (size_t k = 0; k < ru.list_count; k++)
		if (ru.lists[k].changed && !rebuild(&ru, &ru.lists[k]))
			ru.nomem = true;
	free(wanted);
	run_free(&ru);
	if (!ru.nomem && pm_demangle_report(r) != PM_OK)
		ru.nomem = true;
	return ru.nomem || (pmi_arena_exhausted(r->arena) && !was_exhausted) ? PM_E_NOMEM : PM_OK;
}
