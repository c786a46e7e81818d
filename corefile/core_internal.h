/*
 * core_internal.h — what the core reader's files share (NOT AS-safe).
 */
#ifndef PM_COREFILE_CORE_INTERNAL_H
#define PM_COREFILE_CORE_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "core.h"

/* Little-endian fields at any alignment (both architectures are little-endian). */
static inline uint16_t
pmi_core_u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t
pmi_core_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t
pmi_core_u64(const unsigned char *p)
{
	return (uint64_t)pmi_core_u32(p) | (uint64_t)pmi_core_u32(p + 4) << 32;
}

enum {
	PM_CORE_EHDR = 64,        /* Elf64_Ehdr */
	PM_CORE_PHDR = 56,        /* Elf64_Phdr */
	PM_CORE_SHDR = 64,        /* Elf64_Shdr */
	PM_CORE_PHNUM_MAX = 1 << 20,
};

/* What the ELF header says. */
typedef struct pm_core_ehdr {
	pm_core_arch arch;
	uint64_t phoff, shoff;
	uint32_t phnum;           /* PN_XNUM (0xffff): the count is in section 0's sh_info */
} pm_core_ehdr;

/* A PT_NOTE's place in the core. */
typedef struct pm_core_span {
	uint64_t offset, size;
} pm_core_span;

/* A range of memory a stream kept. */
typedef struct pm_core_kept {
	uint64_t vaddr, offset;   /* where it is in memory and in the core */
	size_t len, got;          /* bytes wanted, bytes that came */
	unsigned char *data;
} pm_core_kept;

/* A file the core mapped, opened (or checked) when first read. */
typedef struct pm_core_file {
	const char *path;         /* NT_FILE's */
	int fd;                   /* -1: not opened yet or unusable */
	bool tried;
	bool borrowed;            /* a descriptor given (pm_core_options.mapped): not ours to close */
} pm_core_file;

struct pm_core_src {
	pm_core_pread_fn *pread;  /* a core file, or NULL for a stream */
	void *pread_ctx;
	int fd;                   /* the file pmi_core_open opened, or -1 */
	pm_core_kept *kept;       /* a stream's ranges, by vaddr */
	size_t nkept;
	unsigned char *file_note; /* NT_FILE's bytes (the maps' paths point into them) */
	int mem_fd;
	char *sysroot, *exe;      /* the sysroot's real path */
	int sysroot_fd;           /* the sysroot as given (O_PATH), or -1 */
	pm_core_file *files;      /* one per distinct NT_FILE path, or per descriptor given */
	size_t nfiles;
	size_t *map_file;         /* maps[i]'s file (SIZE_MAX: none) */
	pm_core_mapped *mapped;   /* the descriptors given, by start (NULL: paths) */
	size_t nmapped;
};

/* Say why in one line; returns e. */
pm_err pmi_core_fail(char *why, size_t cap, pm_err e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Check the ELF header. */
pm_err pmi_core_parse_ehdr(const unsigned char *p, size_t n, pm_core_ehdr *h, char *why, size_t cap);
/* Take the program headers (n entries at p) into c->segs and the PT_NOTEs into *notes (malloc'd).  The
 * one rule for the notes' size, both ways in: each PT_NOTE and their total, padded to 4 bytes each as
 * they are joined, at most PM_CORE_NOTES_MAX (checked before each is added: no sum wraps). */
pm_err pmi_core_parse_phdrs(pm_core *c, const unsigned char *p, size_t n, pm_core_span **notes, size_t *nnotes,
                            char *why, size_t cap);
/* The notes, read as they come (core_notes.c): the PT_NOTEs one after the
 * other, each padded to 4 bytes, fed in pieces of any size. */
enum { PM_NOTE_HEAD, PM_NOTE_NAME, PM_NOTE_DESC, PM_NOTE_PAD };
typedef struct pm_core_notes {
	pm_core *c;
	int part;                 /* PM_NOTE_*: the part of a note being read */
	uint64_t need, have;      /* its bytes, and how many came */
	uint64_t at, note_at;     /* bytes fed, and where this note began */
	unsigned char head[12];   /* namesz, descsz, type */
	uint32_t namesz, descsz, type;
	unsigned char name[8];    /* the name's first bytes ("CORE") */
	bool keep;                /* a note the report needs: its desc is held */
	unsigned char *desc;
	size_t desc_cap;
	pm_err err;
} pm_core_notes;
void pmi_core_notes_begin(pm_core_notes *r, pm_core *c);
/* The next n bytes of the notes (p may be NULL for at most pmi_core_notes_skippable bytes). */
pm_err pmi_core_notes_feed(pm_core_notes *r, const unsigned char *p, uint64_t n, char *why, size_t cap);
/* How many of the next bytes the reader will not look at (a file's reader seeks over them). */
uint64_t pmi_core_notes_skippable(const pm_core_notes *r);
/* The notes are all in: check the last note was whole, then what needs every note (the fault's
 * address, the files' index); frees the reader's buffer on every path. */
pm_err pmi_core_notes_end(pm_core_notes *r, char *why, size_t cap);
/* One thread's registers from NT_PRSTATUS's pr_reg (core_regs.c); false when n is not the arch's size. */
bool pmi_core_take_regs(pm_core_arch arch, const unsigned char *reg, size_t n, pm_core_thread *t);
/* Put a fault's address where the thread's mcontext keeps it (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP). */
void pmi_core_set_fault_address(pm_core_arch arch, pm_core_thread *t, const pm_core_siginfo *si);
/* The size of NT_PRSTATUS and where pr_reg lies in it, for arch. */
void pmi_core_prstatus_layout(pm_core_arch arch, size_t *size, size_t *reg_off, size_t *reg_len);
/* A new core with its source set up from opt; NULL when out of memory. */
pm_core *pmi_core_new(const pm_core_options *opt);
/* A core that names no file (no NT_FILE): the executable given's PT_LOADs as its file mappings (core_exe.c). */
pm_err pmi_core_exe_maps(pm_core *c);
/* Group the maps by file (after the notes). */
pm_err pmi_core_index_files(pm_core *c);
/* The build id of an ELF image whose first bytes are p[0..n) (GNU build-id note
 * within them); its length, or 0. */
size_t pmi_core_build_id(const unsigned char *p, size_t n, unsigned char *id, size_t cap);
/* Choose what a stream keeps, the stream being at offset `from` (core_keep.c). */
pm_err pmi_core_pick(pm_core *c, const pm_core_stream_limits *lim, uint64_t from, char *why, size_t cap);
/* The first bytes of [addr, addr + n) from the file mapped there (core_files.c): how many, 0 for none. */
size_t pmi_core_file_read(pm_core *c, uint64_t addr, void *dst, size_t n);
/* The first bytes of [addr, addr + n) the core itself holds (core_own.c): how many, 0 for none. */
size_t pmi_core_own_piece(pm_core *c, uint64_t addr, void *dst, size_t n);
/* A source of memory: the first bytes of [addr, addr + n) it has, how many, 0 for none. */
typedef size_t pmi_core_piece_fn(pm_core *c, uint64_t addr, void *dst, size_t n);
/* [addr, addr + n) whole, piece by piece, each from `piece`; false if any piece is missing. */
bool pmi_core_read_whole(pm_core *c, pmi_core_piece_fn *piece, uint64_t addr, void *dst, size_t n);
/* Memory through the core's own bytes alone (no process, no files). */
bool pmi_core_own_read(pm_core *c, uint64_t addr, void *dst, size_t n);
/* In an array of n structs of `stride` bytes sorted by the uint64_t at `field`:
 * the last whose value is <= addr, or n. */
size_t pmi_core_find(const void *base, size_t n, size_t stride, size_t field, uint64_t addr);

#endif
