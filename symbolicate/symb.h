/*
 * symb.h — the pieces behind pm_symbolicate (include/postmortem.h).
 *
 * One image at a time: find_debug.c picks the files by build id (Apple
 * images: by UUID, macho.c reading Mach-O), module.c and macho_file.c open
 * them (the image's symbols and load bias; libdw for the DWARF), units.c and
 * scopes.c index what a lookup needs, resolve.c turns one address into its
 * chain of frames, symbolicate.c walks the report.  A pre-parsed table
 * (table.c, written by table_build.c for pm_symbols_build) answers instead
 * when a debug dir holds one for the image.  What no local file gives is
 * asked of debuginfod servers (debuginfod.c) when the options say so.
 * Ordinary code: it allocates, and never runs in a signal handler.
 */
#ifndef PM_SYMBOLICATE_SYMB_H
#define PM_SYMBOLICATE_SYMB_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "postmortem-tools.h"

/* ---- facts about one ELF file (elf_facts.c) ---------------------------- */

typedef struct pm_sy_facts {
	uint8_t build_id[PM_BUILD_ID_MAX];
	size_t build_id_len;
	bool has_dwarf;          /* a .debug_info with contents */
	char debuglink[256];     /* .gnu_debuglink name, "" when none */
} pm_sy_facts;

/* 0, or an errno value (ENOEXEC: not an ELF file). */
int pmi_sy_facts_read(const char *path, pm_sy_facts *f);
/* The same for a Mach-O file (macho_file.c): the UUID of the slice for the image's arch
 * as the build id; ESRCH: no slice for it, EINVAL: damaged. */
int pmi_sy_macho_facts(const char *path, const pm_image *img, pm_sy_facts *f);
/* A read-only descriptor of a regular file, or -1 with errno set (EINVAL: not a regular file). */
int pmi_sy_open_file(const char *path);
/* Lower-case hex of a build id into buf (2 * len + 1 bytes). */
void pmi_sy_hex(const uint8_t *id, size_t len, char *buf);
/* Is a file of id `have` the one a report names by `want`?  The same id; or, for
 * a .crash read alone, which carries only the debug id (the first 16 build id
 * bytes, docs/identifiers.md), a longer build id that starts with it. */
bool pmi_sy_same_id(const uint8_t *want, size_t want_len, const uint8_t *have, size_t have_len);

/* ---- debuginfod servers (debuginfod.c) --------------------------------- */

/* One answer of the servers (or of the client's cache). */
typedef struct pm_sy_asked {
	char id[2 * PM_BUILD_ID_MAX + 1];
	bool executable;         /* the image file itself, not its debug file */
	int err;                 /* 0, or an errno value: ENOENT none, ENOSYS no server set, ... */
	char *path;              /* in the client's cache */
	char *url;               /* where it was downloaded from, NULL when the cache had it */
} pm_sy_asked;

/* What one symbolication asked, and whether it may ask more. */
typedef struct pm_sy_remote {
	bool on;
	const pm_symbolicate_options *opt;
	struct debuginfod_client *client; /* begun at the first question */
	pm_sy_asked *asked;
	size_t asked_count, asked_cap;
	const char *asking;      /* the image a download is for, for progress */
} pm_sy_remote;

/* Ready to ask when opt says so (opt may be NULL: never). */
void pmi_sy_remote_init(pm_sy_remote *r, const pm_symbolicate_options *opt);
/*
 * The debug file (or with `executable`, the image file) of a build id in hex,
 * for the image called name (may be NULL): its answer in *found (owned by r;
 * each id and kind is asked once), 0 when a file came, else an errno value
 * (ENOSYS: not asked).  *note gets (malloc'd) what the image's note should
 * say about it, or NULL; after a failure other than ENOENT nothing more is asked.
 */
int pmi_sy_remote_find(pm_sy_remote *r, const char *id_hex, bool executable, const char *name, const pm_sy_asked **found,
                       char **note);
/* Remove a file the servers sent that is not the image's from the cache. */
void pmi_sy_remote_refuse(const pm_sy_asked *a);
void pmi_sy_remote_end(pm_sy_remote *r);

/* ---- where the files are (find_debug.c) -------------------------------- */

typedef struct pm_sy_files {
	char *elf_path;          /* program headers and symbols: the image, else its debug file */
	char *dwarf_path;        /* the file with .debug_info, NULL when none was found */
	char *note;              /* why nothing was found, or which candidates were refused */
} pm_sy_files;

/* Look for an image's files by its build id (macho: an Apple image's UUID, dSYMs), then
 * ask remote (may be NULL) for an ELF image's.  Returns false when out of memory. */
bool pmi_sy_find_files(const pm_image *img, bool macho, const pm_symbolicate_options *opt, pm_sy_remote *remote,
                       pm_sy_files *out);
void pmi_sy_files_free(pm_sy_files *f);

/* ---- growable arrays (vec.c) ------------------------------------------- */


/* ---- strings copied into the report (strings.c) ------------------------ */

/* Maps a string owned by libelf/libdw (by its address) to its copy in the
 * report's arena, so each distinct name or file is copied once per image. */
typedef struct pm_sy_strings {
	const char **keys, **values;
	size_t count, cap;       /* cap is 0 or a power of two */
	pm_arena *arena;
} pm_sy_strings;

/* The arena copy of s (demangled first when `demangle`); NULL when out of memory. */
const char *pmi_sy_string(pm_sy_strings *t, const char *s, bool demangle);
/* The arena copy of source file `file` (from libdw), under `dir` when it is relative and dir is not NULL. */
const char *pmi_sy_path(pm_sy_strings *t, const char *file, const char *dir);
void pmi_sy_strings_free(pm_sy_strings *t);

/* malloc'd readable name (C++, Rust, D), or NULL when s is not a mangled name. */
char *pmi_sy_demangle(const char *s);

/* ---- the image's own symbol table (symtab.c) --------------------------- */

typedef struct pm_sy_sym {
	uint64_t addr, size;
	const char *name;        /* in the ELF's string table */
	size_t index;            /* in the table */
} pm_sy_sym;

typedef struct pm_sy_symtab {
	pm_sy_sym *syms;         /* sorted by addr, one per address */
	size_t count;
} pm_sy_symtab;

/* .symtab, or .dynsym when the file has no .symtab.  False when out of memory. */
bool pmi_sy_symtab_load(pm_sy_symtab *t, Elf *elf);
/* Sort the table by address, keeping one symbol per address (see symtab.c). */
void pmi_sy_symtab_sort(pm_sy_symtab *t);
/* The symbol naming link-time address pc, or NULL. */
const pm_sy_sym *pmi_sy_symtab_find(const pm_sy_symtab *t, uint64_t pc);
void pmi_sy_symtab_free(pm_sy_symtab *t);

/* ---- functions and inlined calls of one compile unit (scopes.c) -------- */

typedef struct pm_sy_scope {
	Dwarf_Off die;           /* DW_TAG_subprogram or DW_TAG_inlined_subroutine */
	int32_t parent;          /* the enclosing scope, -1 for none */
	bool inlined;
	uint64_t entry;          /* entry pc (link time) */
	uint32_t call_file;      /* an inlined scope's call site: file index + 1 (0: none), */
	uint32_t call_line, call_column;            /* line and column */
	uint32_t first_range, range_count;          /* in pm_sy_scopes.ranges */
	const char *name;        /* arena copy, filled on first use */
} pm_sy_scope;

typedef struct pm_sy_range {
	uint64_t lo, hi;         /* [lo, hi), link time */
	uint32_t scope, depth;
} pm_sy_range;

typedef struct pm_sy_scopes {
	pm_sy_scope *scopes;
	size_t count;
	pm_sy_range *ranges;     /* per scope, in scope order */
	pm_sy_range *sorted;     /* the same, by lo then depth */
	size_t range_count;
} pm_sy_scopes;

/* Index every function and inlined call of a compile unit.  False when out of memory. */
bool pmi_sy_scopes_build(pm_sy_scopes *s, Dwarf_Die *cudie);
/* The innermost scope containing pc, or -1. */
int32_t pmi_sy_scopes_at(const pm_sy_scopes *s, uint64_t pc);
void pmi_sy_scopes_free(pm_sy_scopes *s);

/* ---- compile units by address (units.c) -------------------------------- */

typedef struct pm_sy_unit {
	Dwarf_Die die;
	const char *comp_dir;    /* DW_AT_comp_dir, NULL when absent */
	pm_sy_scopes scopes;     /* built with the unit, on the first lookup in it */
	Dwarf_Files *files;      /* NULL until a call site needs a file name */
	size_t file_count;
} pm_sy_unit;

typedef struct pm_sy_unit_span {
	uint64_t lo, hi;
	Dwarf_Off die;
} pm_sy_unit_span;

typedef struct pm_sy_units {
	Dwarf *dwarf;
	pm_sy_unit **slots;      /* units met so far, hashed by DIE offset */
	size_t count, cap;
	pm_sy_unit_span *spans;  /* every unit's ranges by lo, built when .debug_aranges fails */
	size_t span_count;
	bool spans_built;
} pm_sy_units;

/* The unit covering pc, its scopes indexed, or NULL; *nomem tells an allocation failed. */
pm_sy_unit *pmi_sy_units_at(pm_sy_units *u, uint64_t pc, bool *nomem);
void pmi_sy_units_free(pm_sy_units *u);

/* ---- DWARF sections inflated for libdw (dwarf_image.c) ----------------- */

/* A malloc'd ELF image of elf's DWARF sections, uncompressed; NULL when
 * libdw should read the file itself. */
char *pmi_sy_dwarf_image(Elf *elf, size_t *size);

/* A section's bytes for pmi_sy_dwarf_image_of. */
typedef struct pm_sy_section {
	const char *name;        /* ".debug_info" */
	const void *data;
	size_t size;
} pm_sy_section;

/* A malloc'd ELF image (64-bit, host byte order, machine e_machine) of these sections,
 * for libdw to read DWARF kept outside an ELF file (a dSYM); NULL when out of memory. */
char *pmi_sy_dwarf_image_of(const pm_sy_section *secs, size_t n, uint16_t e_machine, size_t *size);

/* ---- Mach-O files (macho.c) -------------------------------------------- */

enum { PM_SY_MACHO_MAX_SECTIONS = 16 };

typedef struct pm_sy_macho_section {
	const char *name;        /* the ELF name: ".debug_info" */
	uint64_t offset, size;   /* in the slice */
} pm_sy_macho_section;

/* One 64-bit little-endian slice; offsets are checked against its length. */
typedef struct pm_sy_macho {
	const unsigned char *data; /* the slice */
	size_t len;
	uint32_t cputype, cpusubtype;
	uint8_t uuid[16];
	bool has_uuid;
	uint64_t text_vmaddr;    /* the __TEXT segment's address: the image's load address at link time */
	bool has_text;
	uint32_t symoff, nsyms, stroff, strsize; /* LC_SYMTAB */
	bool has_symtab;
	pm_sy_macho_section dwarf[PM_SY_MACHO_MAX_SECTIONS]; /* of the __DWARF segment */
	size_t dwarf_count;
} pm_sy_macho;

/*
 * Read a thin or universal Mach-O file.  In a universal file the slice for
 * `arch` ("arm64", "arm64e", "x86_64"; NULL or unknown: any) is taken, and of
 * several, the one whose LC_UUID is `uuid` (may be NULL).  0, ENOEXEC (not a
 * 64-bit little-endian Mach-O), EINVAL (damaged) or ESRCH (no slice for arch).
 */
int pmi_sy_macho_read(const void *data, size_t len, const char *arch, const uint8_t *uuid, pm_sy_macho *out);
/* The slice has a __DWARF __debug_info section. */
bool pmi_sy_macho_has_dwarf(const pm_sy_macho *m);
/* Its defined (N_SECT) symbols, without the leading '_'; names point into m->data.
 * False when out of memory. */
bool pmi_sy_macho_symtab(const pm_sy_macho *m, pm_sy_symtab *t);

/* ---- one image opened for lookups (module.c, macho_file.c) ------------- */

/* A file mapped read-only. */
typedef struct pm_sy_map {
	unsigned char *data;
	size_t len;
} pm_sy_map;

/* 0 or an errno value (ENOEXEC: not a regular file, empty, or past 4 GiB). */
int pmi_sy_map_file(const char *path, pm_sy_map *m);
void pmi_sy_unmap(pm_sy_map *m);

typedef struct pm_sy_module {
	int elf_fd, dwarf_fd;
	Elf *elf, *dwarf_elf;    /* dwarf_elf is NULL when elf holds the DWARF */
	char *dwarf_image;       /* pmi_sy_dwarf_image of the DWARF file, or NULL */
	Elf *dwarf_mem;          /* elf_memory over dwarf_image */
	Dwarf *dwarf;            /* NULL when there is no DWARF */
	pm_sy_map maps[2];       /* Mach-O: the symbols' file and the DWARF's (unused when the same) */
	uint64_t bias;           /* runtime address - link-time address */
	pm_sy_symtab symtab;
	pm_sy_units units;
	pm_sy_strings strings;
} pm_sy_module;

/*
 * Open an image's files for lookups.  False when nothing can be looked up
 * (or out of memory); why then says why.  True with why set: the symbols
 * can be used but the DWARF cannot (e.g. "cannot read DWARF in /x: ...").
 */
bool pmi_sy_module_open(pm_sy_module *m, const pm_image *img, const pm_sy_files *files, pm_arena *arena,
                       char *why, size_t why_len);
/* The same for an Apple image: files are Mach-O (a dSYM's DWARF file, the binary). */
bool pmi_sy_macho_module_open(pm_sy_module *m, const pm_image *img, const pm_sy_files *files, pm_arena *arena,
                             char *why, size_t why_len);
void pmi_sy_module_close(pm_sy_module *m);
/* The first steps of opening: an empty module (why emptied too). */
void pmi_sy_module_init(pm_sy_module *m, pm_arena *arena, char *why);
/* libdw over elf (NULL: out of memory), the DWARF of `path`; why says what failed. */
void pmi_sy_module_dwarf(pm_sy_module *m, Elf *elf, const char *path, char *why, size_t why_len);

/* ---- one address (resolve.c) ------------------------------------------- */

/* What symbolication adds to a frame; the rest (address, image, how) stays
 * the report's.  Kept apart from pm_frame, at about half its size, because a
 * report's frames are all resolved before any list is rebuilt. */
typedef struct pm_sy_loc {
	const char *symbol;      /* NULL: keep the report's */
	const char *file;
	uint64_t symbol_offset;
	uint64_t from;           /* runtime address the offset counts from (with symbol) */
	uint32_t line, column;
	bool has_offset, inlined;
} pm_sy_loc;

/* A growable list of them (malloc'd). */
typedef struct pm_sy_locs {
	pm_sy_loc *v;
	size_t len, cap;
} pm_sy_locs;

/* Append a zeroed one; NULL when out of memory. */
pm_sy_loc *pmi_sy_locs_push(pm_sy_locs *l);

typedef enum pm_sy_result {
	PM_SY_NONE,              /* nothing known at this address */
	PM_SY_FOUND,             /* frames were appended */
	PM_SY_NOMEM,
} pm_sy_result;

/*
 * Append the frames at runtime address `address` (looked up at `lookup`),
 * innermost first: every inlined call, then the function it was inlined
 * into.
 */
pm_sy_result pmi_sy_resolve(pm_sy_module *m, uint64_t address, uint64_t lookup, pm_sy_locs *out);

/* ---- the pre-parsed table (table.c, table_build.c) --------------------- */

#define PM_SY_TABLE_MAGIC "PMSYMTB1"
enum {
	PM_SY_TABLE_HEADER = 112,
	PM_SY_TABLE_RANGE = 16,
	PM_SY_TABLE_LOC = 32,
	PM_SY_TABLE_OFFSET = 1,  /* loc flags: the symbol has an offset from `from` */
	PM_SY_TABLE_INLINED = 2,
};

typedef struct pm_sy_table {
	pm_sy_map map;
	const uint8_t *id;
	uint32_t id_len;
	uint64_t base;           /* the image's link-time start */
	const unsigned char *ranges, *locs;
	size_t range_count, loc_count;
	const char *strings;
	size_t strings_len;
} pm_sy_table;

/* Map and check a table: 0, ENOENT, or another errno value with why set (EINVAL: damaged). */
int pmi_sy_table_open(pm_sy_table *t, const char *path, char *why, size_t why_len);
void pmi_sy_table_close(pm_sy_table *t);
/* Check a table in memory and point t's parts into it (t->map is left alone); false with why set. */
bool pmi_sy_table_check(pm_sy_table *t, const void *data, size_t len, char *why, size_t why_len);
/* pmi_sy_resolve from a table; bias is the image's load address minus t->base. */
pm_sy_result pmi_sy_table_resolve(const pm_sy_table *t, uint64_t bias, uint64_t address, uint64_t lookup,
                                 pm_sy_strings *strings, pm_sy_locs *out);
/* Write the table of an open module (bias 0: link-time addresses) to out.  False when out
 * of memory or the write failed (errno). */
bool pmi_sy_table_write(pm_sy_module *m, const uint8_t *id, size_t id_len, uint64_t base, FILE *out);

#endif
