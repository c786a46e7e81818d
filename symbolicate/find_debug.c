/*
 * find_debug.c — find an image's debug information by its build id.
 *
 * Candidates, in order: the image file at its recorded path; its
 * .gnu_debuglink next to it, in .debug/ beside it and under /usr/lib/debug;
 * /usr/lib/debug/.build-id/xx/rest.debug; then each debug dir, both as a
 * build-id tree (DIR/.build-id/xx/rest.debug, DIR/xx/rest.debug) and as a
 * plain directory (DIR/<debuglink>, DIR/<name>.debug, DIR/<name>).  The
 * first file whose build id matches and that holds DWARF wins.  A file whose
 * build id differs is refused and named in the note even when another file
 * is found: a rebuilt binary at the recorded path must never pass unnoticed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symb.h"

typedef struct search {
	const pm_image *img;
	char id_hex[2 * PM_BUILD_ID_MAX + 1];
	char *image_file;        /* the recorded path, when its build id matches */
	char debuglink[256];     /* from image_file */
	char *found;             /* a matching file with DWARF */
	char *symbols_only;      /* a matching file without DWARF */
	char *refused;           /* mismatches: always reported */
	char *details;           /* other findings: reported when nothing is found */
	bool nomem;
} search;

/* Append "; "-separated text to *list. */
static void __attribute__((format(printf, 3, 4)))
add(search *s, char **list, const char *fmt, ...)
{
	char *item, *joined;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&item, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s->nomem = true;
		return;
	}
	if (!*list) {
		*list = item;
		return;
	}
	n = asprintf(&joined, "%s; %s", *list, item);
	free(item);
	if (n < 0) {
		s->nomem = true;
		return;
	}
	free(*list);
	*list = joined;
}

/*
 * A .crash read alone carries the debug id, that is the first 16 build id bytes
 * (docs/identifiers.md): a longer build id that starts with them is the same file.
 */
static bool
same_build_id(const pm_image *img, const pm_sy_facts *f)
{
	size_t n = img->build_id_len;
	return (f->build_id_len == n || (n == 16 && f->build_id_len > n)) && memcmp(f->build_id, img->build_id, n) == 0;
}

/* Check one candidate; true when it settles the search.  Takes `path`. */
static bool
try_file(search *s, char *path, pm_sy_facts *facts)
{
	if (!path) {
		s->nomem = true;
		return false;
	}
	int err = pm_sy_facts_read(path, facts);
	if (err == ENOENT || err == ENOTDIR) {
		free(path);
		return false;
	}
	if (err) {
		add(s, &s->details, "%s: %s", path, err == ENOEXEC ? "not an ELF file" : strerror(err));
	} else if (!same_build_id(s->img, facts)) {
		char hex[2 * PM_BUILD_ID_MAX + 1];
		pm_sy_hex(facts->build_id, facts->build_id_len, hex);
		add(s, &s->refused, "build id mismatch: %s has %s", path, facts->build_id_len ? hex : "no build id");
	} else if (facts->has_dwarf) {
		s->found = path;
		return true;
	} else {
		add(s, &s->details, "stripped: no .debug_info in %s", path);
		if (!s->symbols_only) {
			s->symbols_only = path;
			return false;
		}
	}
	free(path);
	return false;
}

/* Check the file named by fmt unless the search is over. */
static void __attribute__((format(printf, 2, 3)))
try_path(search *s, const char *fmt, ...)
{
	if (s->found)
		return;
	char *path;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&path, fmt, ap);
	va_end(ap);
	/* The image file was looked at first, and naming it twice helps nobody. */
	if (n >= 0 && s->img->path && strcmp(path, s->img->path) == 0) {
		free(path);
		return;
	}
	pm_sy_facts facts;
	try_file(s, n < 0 ? NULL : path, &facts);
}

static void
try_image_file(search *s)
{
	const char *p = s->img->path;
	if (!p || p[0] != '/')
		return;
	pm_sy_facts facts;
	char *path = strdup(p);
	if (try_file(s, path, &facts)) {
		s->image_file = strdup(p);
		s->nomem |= !s->image_file;
	} else if (s->symbols_only && strcmp(s->symbols_only, p) == 0) {
		s->image_file = s->symbols_only;
		s->symbols_only = NULL;
	} else {
		return;
	}
	strcpy(s->debuglink, facts.debuglink);
	/* The whole build id, for the build-id trees, when the report had only its start. */
	pm_sy_hex(facts.build_id, facts.build_id_len, s->id_hex);
}

static void
try_debuglink(search *s)
{
	if (!s->image_file || !s->debuglink[0])
		return;
	const char *slash = strrchr(s->image_file, '/');
	int dir = (int)(slash - s->image_file);
	const char *f = s->image_file, *link = s->debuglink;
	try_path(s, "%.*s/%s", dir, f, link);
	try_path(s, "%.*s/.debug/%s", dir, f, link);
	try_path(s, "/usr/lib/debug%.*s/%s", dir, f, link);
}

static void
try_debug_dir(search *s, const char *dir)
{
	const char *id = s->id_hex, *name = s->img->name;
	try_path(s, "%s/.build-id/%.2s/%s.debug", dir, id, id + 2);
	try_path(s, "%s/%.2s/%s.debug", dir, id, id + 2);
	if (s->debuglink[0])
		try_path(s, "%s/%s", dir, s->debuglink);
	/* The name is the report's: it may not climb out of the directory. */
	if (name && !strchr(name, '/') && name[0] != '.') {
		try_path(s, "%s/%s.debug", dir, name);
		try_path(s, "%s/%s", dir, name);
	}
}

static void
finish(search *s, pm_sy_files *out)
{
	if (s->found) {
		out->dwarf_path = s->found;
		out->elf_path = strdup(s->image_file ? s->image_file : s->found);
		s->nomem |= !out->elf_path;
		out->note = s->refused;
		s->refused = NULL;
		return;
	}
	/* Without DWARF the image's own symbols still name its functions. */
	char **elf = s->image_file ? &s->image_file : &s->symbols_only;
	out->elf_path = *elf;
	*elf = NULL;
	char *note = NULL;
	add(s, &note, "no debug file with build id %s found", s->id_hex);
	if (s->details)
		add(s, &note, "%s", s->details);
	if (s->refused)
		add(s, &note, "%s", s->refused);
	out->note = note;
}

bool
pm_sy_find_files(const pm_image *img, const pm_symbolicate_options *opt, pm_sy_files *out)
{
	memset(out, 0, sizeof *out);
	if (img->build_id_len == 0) {
		out->note = strdup("no build id in the report: no debug file can be matched to this image");
		return out->note != NULL;
	}
	search s = { .img = img };
	pm_sy_hex(img->build_id, img->build_id_len, s.id_hex);
	try_image_file(&s);
	try_debuglink(&s);
	try_path(&s, "/usr/lib/debug/.build-id/%.2s/%s.debug", s.id_hex, s.id_hex + 2);
	for (size_t i = 0; opt && i < opt->debug_dir_count; i++)
		if (opt->debug_dirs[i])
			try_debug_dir(&s, opt->debug_dirs[i]);
	finish(&s, out);
	free(s.image_file);
	free(s.symbols_only);
	free(s.refused);
	free(s.details);
	if (s.nomem)
		pm_sy_files_free(out);
	return !s.nomem;
}

void
pm_sy_files_free(pm_sy_files *f)
{
	free(f->elf_path);
	free(f->dwarf_path);
	free(f->note);
	memset(f, 0, sizeof *f);
}
