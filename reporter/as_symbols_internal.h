/*
 * as_symbols_internal.h — AS-SAFE pieces of the in-handler symbolizer,
 * shared by its files and its tests.
 *
 * The working memory reserved at install starts with one flag per image (a
 * frame needs its names), then room for the addresses one image's frames look
 * up (pm_sym_want, at most a quarter of it); the rest is the area where one
 * image at a time gets a table of the function symbols that may name those
 * addresses (every function symbol when they did not fit):
 *
 *     area: [ string table, NUL-terminated | pm_sym entries ...... ]
 *
 * The string table is the image's .strtab or .dynstr, copied whole so every
 * name stays reachable; the entries follow it until the area ends.  When
 * they do not all fit, the table keeps those that did and says so
 * (truncated): a missing symbol only leaves a frame without a name, because
 * a lookup never names an address outside the found symbol's extent.
 */
#ifndef PM_REPORTER_AS_SYMBOLS_INTERNAL_H
#define PM_REPORTER_AS_SYMBOLS_INTERNAL_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "as_images.h"
#include "as_mem.h"
#include "as_symbols.h"
#include "postmortem-tools.h"

/* Bytes of ELF records (symbols, hash words, notes) read per pread or pm_mem read. */
enum { PM_SYM_CHUNK = 32 * 1024 };
/* Copies of names into the report, remembered per image (direct-mapped by entry). */
enum { PM_SYM_COPY_CACHE = 64 };
/* The longest name copied into the report (C++ names can run to kilobytes). */
enum { PM_SYM_NAME_MAX = 1024 };
/* "/usr/lib/debug/.build-id/xx/" + 2 hex digits per remaining id byte + ".debug". */
enum { PM_SYM_DEBUG_PATH_MAX = 32 + 2 * PM_BUILD_ID_MAX + 8 };

/* One function: 16 bytes, so a 32 MiB area holds about two million. */
typedef struct pm_sym {
	uint64_t start;      /* runtime address */
	uint32_t size;       /* st_size, clamped: no function is 4 GiB long */
	unsigned name : 31;  /* offset into pm_symtab.names (strings are kept under 2 GiB) */
	unsigned local : 1;  /* STB_LOCAL: an exported alias at the same address wins */
} pm_sym;

/* The addresses one image's table is built for: sorted, distinct (in pcs[].start:
 * pm_sym entries so that the table's sort orders them), and per address the
 * greatest symbol start kept so far among the symbols whose first wanted address
 * at or after their start it is (see as_symtab_add). */
typedef struct pm_sym_want {
	pm_sym *pcs;
	uint64_t *kept;
	size_t count;
} pm_sym_want;

typedef struct pm_symtab {
	char *names;         /* string table, with a NUL after names_len bytes */
	size_t names_len;
	pm_sym *syms;        /* sorted by start, one entry per address, after as_symtab_finish */
	size_t count, cap;
	uint64_t lo, hi;     /* the image's runtime span: symbols outside it are dropped */
	uint64_t bias;       /* runtime address - link-time address */
	bool truncated;      /* symbols were dropped for want of room */
	const pm_sym_want *want; /* NULL: keep every function (a table for any address) */
} pm_symtab;

/* The read buffer, typed for what goes through it. */
typedef union pm_sym_chunk {
	unsigned char bytes[PM_SYM_CHUNK];
	Elf64_Sym syms[PM_SYM_CHUNK / sizeof(Elf64_Sym)];
	uint32_t words[PM_SYM_CHUNK / sizeof(uint32_t)];
} pm_sym_chunk;

typedef struct pm_sym_copy {
	const pm_sym *sym;
	const char *name;    /* in the report's arena */
} pm_sym_copy;

struct pm_as_symbols {
	size_t map_size;     /* the whole mapping, for munmap */
	char *work;          /* the working memory after this struct */
	size_t work_size;
	char *area;          /* the part of it a table may take (see the top of this file) */
	size_t area_size;
	pm_symtab table;     /* the image being named */
	pm_sym_want want;    /* what its frames look up (pcs NULL when they did not fit) */
	pm_sym *want_pcs;    /* room for want_cap addresses, in the working memory */
	uint64_t *want_kept;
	size_t want_cap;
	pm_sym_copy copies[PM_SYM_COPY_CACHE];
	char debug_path[PM_SYM_DEBUG_PATH_MAX];
	pm_sym_chunk chunk;
};

/* --- the table (as_symtab.c) --- */

/* Empty table for image `ai`, with no room yet, that keeps only the symbols
 * that may name an address of `want` (NULL: every symbol). */
void as_symtab_reset(pm_symtab *t, const pm_as_image *ai, const pm_sym_want *want);
/* Lay the table out over [area, area + size): names_len bytes of strings
 * (plus a NUL) then entries.  False when the strings alone do not fit. */
bool as_symtab_place(pm_symtab *t, char *area, size_t size, uint64_t names_len);
/* Keep the defined functions of syms[0..n) that lie in the image; false once
 * the table is full (it is then marked truncated). */
bool as_symtab_add(pm_symtab *t, const Elf64_Sym *syms, size_t n);
/* Reads n symbols at `at` (an address or a file offset) into dst. */
typedef bool pm_sym_reader(const void *ctx, uint64_t at, Elf64_Sym *dst, size_t n);
/* Read `count` symbols from `at` chunk by chunk and as_symtab_add them; a read
 * that fails marks the table truncated.  True when some symbol was kept. */
bool as_symtab_fill(pm_symtab *t, pm_sym_chunk *chunk, uint64_t at, uint64_t count, pm_sym_reader *read,
                    const void *ctx);
/* Heapsort by start: in place, no recursion, O(n log n) even on hostile input. */
void as_symtab_sort(pm_sym *v, size_t n);
/* Sort by address and fold aliases into one entry (see as_symtab.c). */
void as_symtab_finish(pm_symtab *t);
/* The symbol whose extent holds addr, or NULL.  Binary search. */
const pm_sym *as_symtab_lookup(const pm_symtab *t, uint64_t addr);
/* The symbol's name without a symbol version suffix ("name@@VER"): the
 * start and, in *len, the length (it is not NUL-terminated there). */
const char *as_symtab_name(const pm_symtab *t, const pm_sym *sym, size_t *len);

/* --- the sources, in order of preference --- */

/* Each fills s->table for one image and returns true when it found symbols
 * to offer (possibly truncated); the caller then runs as_symtab_finish. */
typedef bool pm_symtab_source(pm_as_symbols *s, const pm_image *img, const pm_as_image *ai,
                              const pm_mem *mem);

/* .symtab of the file at img->path, if its build id is img's (as_symtab_file.c). */
pm_symtab_source as_symtab_from_image_file;
/* .symtab of /usr/lib/debug/.build-id/xx/rest.debug (as_symtab_file.c). */
pm_symtab_source as_symtab_from_debug_file;
/* .dynsym of the mapped image, through mem (as_symtab_dyn.c). */
pm_symtab_source as_symtab_from_dynamic;

/* Build s->table for one image from the best source that fits (as_symbols.c).
 * False when no source gave any symbol. */
bool as_symbols_load(pm_as_symbols *s, const pm_image *img, const pm_as_image *ai, const pm_mem *mem);

#endif
