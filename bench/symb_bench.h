/*
 * symb_bench.h — pieces of bench_symbolicate: the libraries and addresses
 * (symb_addrs.c), running a symbolizer as a child process and reading its
 * answers (symb_run.c).
 */
#ifndef PM_BENCH_SYMB_BENCH_H
#define PM_BENCH_SYMB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "postmortem-tools.h"

typedef struct sb_lib {
	const char *path;
	char debug_path[4096];   /* its debug file under /usr/lib/debug/.build-id */
	uint8_t build_id[PM_BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t base, size;     /* where the benchmark pretends it was loaded */
} sb_lib;

typedef struct sb_addr {
	uint32_t lib;
	uint64_t vaddr;          /* link-time address in the library */
} sb_addr;

/* Read a library's build id and span; false (with a message) when it or its debug file is missing. */
bool sb_lib_open(sb_lib *l, const char *path, uint64_t base);
/* n addresses inside functions of the libraries, each library's code bytes equally likely. */
sb_addr *sb_addrs_make(const sb_lib *libs, size_t nlibs, size_t n, uint64_t seed);

/* One run of a child process. */
typedef struct sb_proc {
	double wall_s;           /* spawn to exit */
	double first_s;          /* spawn to the first byte of output */
	long maxrss_kb;
	char *out;               /* all of standard output */
	size_t len;
} sb_proc;

/* Run argv with standard input from in_path; false when it could not run or failed. */
bool sb_run(char *const argv[], const char *in_path, sb_proc *p);

typedef enum sb_style {
	SB_LLVM,                 /* llvm-symbolizer: function, file:line:column, blank line after each */
	SB_GNU,                  /* addr2line: function, file:line [(discriminator N)] */
	SB_ELFUTILS,             /* eu-addr2line: "function inlined at … in …", file:line:column */
} sb_style;

/*
 * Split the output of a symbolizer run with -a into answers, stored at
 * answers[index[k]] for the k-th address; each answer is its frames,
 * innermost first, as "function @ file:line" joined by " <- ".  Returns the
 * number of answers read.
 */
size_t sb_parse(sb_style style, const char *out, size_t len, char **answers, const size_t *index, size_t count);
/* The same normalized form of a frame (func or file NULL: unknown). */
char *sb_frame_text(char *prev, const char *func, const char *file, uint32_t line);

/* One symbolizer's answers to the same n addresses. */
typedef struct sb_side {
	const char *name;
	char **answers;          /* NULL: no answer */
} sb_side;

/* Where address i is, for examples. */
typedef void sb_label_fn(size_t i, void *ctx, char *buf, size_t len);

/* Percent of a's answers identical to ref's; with a label function, also
 * print the count of each class of difference and a few examples of each. */
double sb_agreement(const sb_side *a, const sb_side *ref, size_t n, sb_label_fn *label, void *ctx);

#endif
