/*
 * as_symbols_internal.h — AS-SAFE pieces of the in-handler symbolizer,
 * shared by its files and its tests.
 *
 * The working memory reserved at install starts with what as_symbols.c
 * keeps for the whole capture: one flag per image (a frame needs its
 * names), the way from a frame's image to the scanned image, and the
 * distinct addresses the frames look up with their answers (at most a
 * quarter of it).  The rest is the area where one image at a time gets a
 * table of the function symbols that may name its addresses (pm_sym_want;
 * every function symbol when the addresses did not fit):
 *
 *     area: [ pm_sym entries ...... | the names they need, NUL-terminated ]
 *
 * The entries are read first, then only the names of those a lookup can
 * return (and of their aliases) are read from the image's .strtab or
 * .dynstr, in a few reads of nearby names: libc's .strtab is 132 KB, its
 * frames' names a few hundred bytes.  When the entries or the names do not
 * all fit, the table keeps what did and says so (truncated): a missing
 * symbol only leaves a frame without a name, because a lookup never names
 * an address outside the found symbol's extent.
 */
#ifndef PM_REPORTER_AS_SYMBOLS_INTERNAL_H
#define PM_REPORTER_AS_SYMBOLS_INTERNAL_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "as_images.h"
#include "as_memory.h"
#include "as_symbols.h"
#include "postmortem-tools.h"

/* Bytes of ELF records (symbols, hash words, notes) read per pread or pm_mem read. */
enum { PM_SYM_CHUNK = 32 * 1024 };
/* Names closer than this in the string table are read together, and this
 * many bytes are read past the last name of a run before its end is looked
 * for.  A read costs about 1 us (a virtual machine's system call), and so
 * does copying a KiB that is cold and faulting in a fresh page of the area
 * for every 4: libc6-dbg's names for the crash benchmark's frames take 16
 * reads of 5 KB, in 60 to 110 us, where a gap of 4 KiB took 6 reads of
 * 32 KB, in 120 to 190 us (fresh processes, alternating). */
enum { PM_SYM_NAMES_GAP = 1024, PM_SYM_NAME_TAIL = 128 };
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
	unsigned name : 31;  /* offset into the string table, then into pm_symtab.names (both under 2 GiB) */
	unsigned local : 1;  /* STB_LOCAL: an exported alias at the same address wins */
} pm_sym;

/* Buckets of an image's span that index its wanted addresses (64 left
 * several addresses in a bucket at 257 threads: the filter was no faster);
 * with their end, as many words as the copy cache's room (see pm_sym_work). */
enum { PM_SYM_WANT_BUCKETS = 255 };

/* The addresses one image's table is built for: sorted, distinct (in pcs[].start:
 * pm_sym entries so that the table's sort orders them), and per address the
 * greatest symbol start kept so far among the symbols whose first wanted address
 * at or after their start it is (see as_symtab_add).  The rest is filled by
 * as_symtab_reset: the image's span cut in PM_SYM_WANT_BUCKETS buckets of
 * 1 << shift bytes, and per bucket the first wanted address at or above its
 * start (first[PM_SYM_WANT_BUCKETS] is count), so that each symbol of the
 * file finds its first wanted address among those of its own bucket, most
 * often none, instead of among all of them. */
typedef struct pm_sym_want {
	pm_sym *pcs;
	uint64_t *kept;
	size_t count;
	unsigned shift;
	uint32_t *first;     /* PM_SYM_WANT_BUCKETS + 1 words (count is far below 2^32); NULL: no index */
} pm_sym_want;

typedef struct pm_symtab {
	char *names;         /* after as_symtab_finish: the names the entries need; names[0] is "" */
	size_t names_len;    /* bytes of the image's string table (st_name is checked against it) */
	char *end;           /* the end of the area the entries, then the names, take */
	pm_sym *syms;        /* sorted by start, one entry per address, after as_symtab_finish */
	size_t count, cap;
	uint64_t lo, hi;     /* the image's runtime span: symbols outside it are dropped */
	uint64_t bias;       /* runtime address - link-time address */
	bool truncated;      /* symbols were dropped for want of room */
	const pm_sym_want *want; /* NULL: keep every function (a table for any address) */
} pm_symtab;

/* Reads n bytes at `at` of a table (a file offset or an address) into dst. */
typedef bool pm_sym_reader(const void *ctx, uint64_t at, void *dst, size_t n);

/* Where a table's names are: the string table at `at`, read with `read`. */
typedef struct pm_sym_names {
	pm_sym_reader *read;
	const void *ctx;
	uint64_t at;
} pm_sym_names;

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

/* The head of the reservation; zero until as_symbols_work sets it up. */
typedef struct pm_sym_work {
	char *work;          /* the working memory after this struct */
	size_t work_size;
	char *area;          /* the part of it a table may take (see the top of this file) */
	size_t area_size;
	pm_symtab table;     /* the image being named */
	pm_sym_want want;    /* what its frames look up (pcs NULL when they did not fit) */
	/* The index of the wanted addresses serves while a table is built, the
	 * copy cache once it is: they share room, and the head keeps its size
	 * (a larger one moved the working memory after it onto one more fresh
	 * page at the first crash). */
	union {
		uint32_t want_first[PM_SYM_WANT_BUCKETS + 1];
		pm_sym_copy copies[PM_SYM_COPY_CACHE];
	};
	char debug_path[PM_SYM_DEBUG_PATH_MAX];
	pm_sym_chunk chunk;
} pm_sym_work;

_Static_assert(sizeof(uint32_t) * (PM_SYM_WANT_BUCKETS + 1) == sizeof(pm_sym_copy) * PM_SYM_COPY_CACHE,
               "the index of the wanted addresses takes the copy cache's room, no more");

/* Bytes of the reservation the head takes, the working memory following. */
enum { PM_SYM_HEAD = (sizeof(pm_sym_work) + 63) & ~(size_t)63 };

/* The reservation's head, set up at its first use (as_symbols.c); NULL
 * when there is no working memory. */
pm_sym_work *as_symbols_work(const pm_as_symbols *h);

/* --- the table (as_symtab.c) --- */

/* Empty table for image `ai`, with no room yet, that keeps only the symbols
 * that may name an address of `want` (NULL: every symbol), whose index it
 * fills. */
void as_symtab_reset(pm_symtab *t, const pm_as_image *ai, pm_sym_want *want);
/* Lay the table out over [area, area + size), for a string table of names_len
 * bytes.  False when names_len is out of range (name offsets are 31 bits). */
bool as_symtab_place(pm_symtab *t, char *area, size_t size, uint64_t names_len);
/* Keep the defined, named functions of syms[0..n) that lie in the image;
 * false once the table is full (it is then marked truncated). */
bool as_symtab_add(pm_symtab *t, const Elf64_Sym *syms, size_t n);
/* Read `count` symbols from `at` chunk by chunk and as_symtab_add them; a read
 * that fails marks the table truncated.  True when some symbol was kept. */
bool as_symtab_fill(pm_symtab *t, pm_sym_chunk *chunk, uint64_t at, uint64_t count, pm_sym_reader *read,
                    const void *ctx);
/* The first of v[0..n), sorted by start, whose start is at or above `start`. */
size_t as_sym_lower_bound(const pm_sym *v, size_t n, uint64_t start);
/* Heapsort by start: in place, no recursion, O(n log n) even on hostile input
 * (as_symtab_sort.c). */
void as_symtab_sort(pm_sym *v, size_t n);
/* Drop the entries no wanted address can find, sort by address, read the
 * names of the others from `names` and fold aliases into one entry (see
 * as_symtab.c).  A name that could not be read (no room, a failed read)
 * leaves its entry nameless and the table truncated. */
void as_symtab_finish(pm_symtab *t, const pm_sym_names *names);
/* Read the names of the sorted entries and point each entry at its copy
 * (as_symtab_names.c). */
void as_symtab_read_names(pm_symtab *t, const pm_sym_names *src);
/* The symbol whose extent holds addr, or NULL.  Binary search. */
const pm_sym *as_symtab_lookup(const pm_symtab *t, uint64_t addr);
/* The symbol's name without a symbol version suffix ("name@@VER"): the
 * start and, in *len, the length (it is not NUL-terminated there). */
const char *as_symtab_name(const pm_symtab *t, const pm_sym *sym, size_t *len);

/* --- the sources, in order of preference --- */

/* Each fills s->table for one image, finishes it (as_symtab_finish) and
 * returns true when it found symbols to offer (possibly truncated). */
typedef bool pm_symtab_source(pm_sym_work *s, const pm_image *img, const pm_as_image *ai,
                              const pm_mem *mem);

/* .symtab of the file at img->path, if its build id is img's (as_symtab_file.c). */
pm_symtab_source as_symtab_from_image_file;
/* .symtab of /usr/lib/debug/.build-id/xx/rest.debug (as_symtab_file.c). */
pm_symtab_source as_symtab_from_debug_file;
/* .dynsym of the mapped image, through mem (as_symtab_dyn.c). */
pm_symtab_source as_symtab_from_dynamic;

/* Build s->table for one image from the best source that fits (as_symbols.c).
 * False when no source gave any symbol. */
bool as_symbols_load(pm_sym_work *s, const pm_image *img, const pm_as_image *ai, const pm_mem *mem);

#endif
