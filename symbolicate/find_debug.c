/*
 * find_debug.c — find an image's debug information by its build id.
 *
 * Candidates, in order: the image file at its recorded path; its
 * .gnu_debuglink next to it, in .debug/ beside it and under /usr/lib/debug;
 * /usr/lib/debug/.build-id/xx/rest.debug; then each debug dir, both as a
 * build-id tree (DIR/.build-id/xx/rest.debug, DIR/xx/rest.debug) and as a
 * plain directory (DIR/<debuglink>, DIR/<name>.debug, DIR/<name>); then
 * what debuginfod servers send (debuginfod.c), checked the same way.  The
 * first file whose build id matches and that holds DWARF wins.  A file whose
 * build id differs is refused and named in the note even when another file
 * is found: a rebuilt binary at the recorded path must never pass unnoticed.
 *
 * Apple images are found by UUID instead: the image file, then in each debug
 * dir DIR/<name>.dSYM/Contents/Resources/DWARF/<name> and DIR/<name>, then
 * every other dSYM bundle's DWARF files and every file in DIR (the slice for
 * the report's arch of a universal file).  Those last are not named after the
 * image, so a UUID mismatch among them is no news and goes unmentioned.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symb.h"

/* How a search speaks of the files it looks at. */
typedef struct kind {
	int (*read)(const char *path, const pm_image *img, pm_sy_facts *f);
	const char *id;          /* "build id" */
	const char *not_ours;    /* ENOEXEC */
	const char *no_dwarf;    /* a matching file without DWARF */
} kind;

static int
read_elf(const char *path, const pm_image *img, pm_sy_facts *f)
{
	(void)img;
	return pmi_sy_facts_read(path, f);
}

static const kind elf_kind_ = { read_elf, "build id", "not an ELF file", "stripped: no .debug_info in" };
static const kind macho_kind = { pmi_sy_macho_facts, "UUID", "not a Mach-O file", "no DWARF in" };

/* Past this many entries a debug dir is not scanned further. */
enum { MAX_SCAN = 4096 };

typedef struct search {
	const kind *k;
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

static const char *
read_error(const search *s, int err, char *buf, size_t cap)
{
	if (err == ENOEXEC)
		return s->k->not_ours;
	if (err == EINVAL)
		return "damaged Mach-O file";
	if (err != ESRCH)
		return strerror(err);
	snprintf(buf, cap, "no %s slice", s->img->arch ? s->img->arch : "matching");
	return buf;
}

static bool
is_the_image(const search *s, const pm_sy_facts *f)
{
	return pmi_sy_same_id(s->img->build_id, s->img->build_id_len, f->build_id, f->build_id_len);
}

/* What a candidate turned out to be. */
typedef enum verdict {
	ABSENT,                  /* no such file (or a quiet candidate that is not the image's) */
	UNREADABLE,
	NOT_OURS,                /* another build id, or not a file of the kind at all */
	SYMBOLS,                 /* the image's, without DWARF */
	FOUND,                   /* the image's, with DWARF: the search is over */
} verdict;

/* Check one candidate, named `shown` in notes (NULL: its path).  Takes `path`.  A
 * quiet candidate (found by scanning a directory) adds to the notes only when it matches. */
static verdict
try_file(search *s, char *path, const char *shown, pm_sy_facts *facts, bool quiet)
{
	if (!path) {
		s->nomem = true;
		return ABSENT;
	}
	int err = s->k->read(path, s->img, facts);
	if (err == ENOENT || err == ENOTDIR || (quiet && (err || !is_the_image(s, facts)))) {
		free(path);
		return ABSENT;
	}
	shown = shown ? shown : path;
	verdict v = NOT_OURS;
	if (err) {
		char buf[64];
		add(s, &s->details, "%s: %s", shown, read_error(s, err, buf, sizeof buf));
		v = err == ENOEXEC ? NOT_OURS : UNREADABLE;
	} else if (!is_the_image(s, facts)) {
		char hex[2 * PM_BUILD_ID_MAX + 1];
		pmi_sy_hex(facts->build_id, facts->build_id_len, hex);
		add(s, &s->refused, "%s mismatch: %s has %s", s->k->id, shown,
		    facts->build_id_len ? hex : s->k == &elf_kind_ ? "no build id" : "no UUID");
	} else if (facts->has_dwarf) {
		s->found = path;
		return FOUND;
	} else {
		add(s, &s->details, "%s %s", s->k->no_dwarf, shown);
		v = SYMBOLS;
		if (!s->symbols_only) {
			s->symbols_only = path;
			return v;
		}
	}
	free(path);
	return v;
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
	try_file(s, n < 0 ? NULL : path, NULL, &facts, false);
}

static void
try_image_file(search *s)
{
	const char *p = s->img->path;
	if (!p || p[0] != '/')
		return;
	pm_sy_facts facts;
	char *path = strdup(p);
	if (try_file(s, path, NULL, &facts, false) == FOUND) {
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
	pmi_sy_hex(facts.build_id, facts.build_id_len, s->id_hex);
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

/* The name is the report's: it may not climb out of the directory. */
static bool
plain_name(const char *name)
{
	return name && !strchr(name, '/') && name[0] != '.';
}

static void
try_debug_dir(search *s, const char *dir)
{
	const char *id = s->id_hex, *name = s->img->name;
	try_path(s, "%s/.build-id/%.2s/%s.debug", dir, id, id + 2);
	try_path(s, "%s/%.2s/%s.debug", dir, id, id + 2);
	if (s->debuglink[0])
		try_path(s, "%s/%s", dir, s->debuglink);
	if (plain_name(name)) {
		try_path(s, "%s/%s.debug", dir, name);
		try_path(s, "%s/%s", dir, name);
	}
}

/* Every file of dir, or of each bundle's Contents/Resources/DWARF when dsyms. */
static void
scan_dir(search *s, const char *dir, bool dsyms)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	for (unsigned n = 0; !s->found && n < MAX_SCAN && (e = readdir(d)); n++) {
		size_t len = strlen(e->d_name);
		bool bundle = len > 5 && strcmp(e->d_name + len - 5, ".dSYM") == 0;
		if (e->d_name[0] == '.' || bundle != dsyms)
			continue;
		char *path;
		if (asprintf(&path, bundle ? "%s/%s/Contents/Resources/DWARF" : "%s/%s", dir, e->d_name) < 0)
			path = NULL;
		if (bundle && path) {
			scan_dir(s, path, false);
			free(path);
		} else {
			pm_sy_facts facts;
			try_file(s, path, NULL, &facts, true);
		}
	}
	closedir(d);
}

static void
try_dsym_dir(search *s, const char *dir)
{
	const char *name = s->img->name;
	if (plain_name(name)) {
		try_path(s, "%s/%s.dSYM/Contents/Resources/DWARF/%s", dir, name, name);
		try_path(s, "%s/%s", dir, name);
	}
	scan_dir(s, dir, true);
	scan_dir(s, dir, false);
}

/* One question to the servers: their file is a candidate like any other, named in notes by
 * the URL it came from (by its path when the client's cache had it). */
static void
ask_remote(search *s, pm_sy_remote *r, bool executable)
{
	const pm_sy_asked *a;
	char *note;
	int err = pmi_sy_remote_find(r, s->id_hex, executable, s->img->name, &a, &note);
	if (note)
		add(s, &s->details, "%s", note);
	free(note);
	s->nomem |= err == ENOMEM;
	if (err == ENOENT && !executable)
		add(s, &s->details, "no debug file on debuginfod");
	if (err)
		return;
	pm_sy_facts facts;
	if (try_file(s, strdup(a->path), a->url, &facts, false) == NOT_OURS)
		pmi_sy_remote_refuse(a);
}

/* What no local file gave: the debug file, else (with no file for the symbols either) the image itself. */
static void
try_remote(search *s, pm_sy_remote *r)
{
	if (!r || s->found)
		return;
	ask_remote(s, r, false);
	if (!s->found && !s->image_file && !s->symbols_only)
		ask_remote(s, r, true);
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
	add(s, &note, "no debug file with %s %s found", s->k->id, s->id_hex);
	if (s->details)
		add(s, &note, "%s", s->details);
	if (s->refused)
		add(s, &note, "%s", s->refused);
	out->note = note;
}

bool
pmi_sy_find_files(const pm_image *img, bool macho, const pm_symbolicate_options *opt, pm_sy_remote *remote,
                  pm_sy_files *out)
{
	memset(out, 0, sizeof *out);
	if (img->build_id_len == 0) {
		out->note = strdup("no build id in the report: no debug file can be matched to this image");
		return out->note != NULL;
	}
	search s = { .k = macho ? &macho_kind : &elf_kind_, .img = img };
	pmi_sy_hex(img->build_id, img->build_id_len, s.id_hex);
	try_image_file(&s);
	if (!macho) {
		try_debuglink(&s);
		try_path(&s, "/usr/lib/debug/.build-id/%.2s/%s.debug", s.id_hex, s.id_hex + 2);
	}
	for (size_t i = 0; opt && i < opt->debug_dir_count; i++)
		if (opt->debug_dirs[i])
			(macho ? try_dsym_dir : try_debug_dir)(&s, opt->debug_dirs[i]);
	if (!macho)
		try_remote(&s, remote);
	finish(&s, out);
	free(s.image_file);
	free(s.symbols_only);
	free(s.refused);
	free(s.details);
	if (s.nomem)
		pmi_sy_files_free(out);
	return !s.nomem;
}

void
pmi_sy_files_free(pm_sy_files *f)
{
	free(f->elf_path);
	free(f->dwarf_path);
	free(f->note);
	memset(f, 0, sizeof *f);
}
