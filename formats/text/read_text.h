/*
 * read_text.h — private pieces of the Apple-style .crash text reader
 * (pm_read_text), shared between its files:
 *
 *   read_text.c            line loop, sections, phases, finishing touches
 *   read_text_scan.c       bounded lexing of unterminated slices
 *   read_text_header.c     identity/time/OS header lines, Date/Time parsing
 *   read_text_exception.c  exception block, termination, ASI, Kernel Triage
 *   read_text_frames.c     thread headers, frame lines, Last Exception Backtrace
 *   read_text_regs.c       thread state
 *   read_text_images.c     Binary Images, and frame -> image resolution
 *
 * The input is not NUL-terminated and lines may hold NULs, so everything here
 * works on (pointer, length) slices and never calls a locale-dependent or
 * unbounded C library function on them.
 */
#ifndef PM_FORMATS_READ_TEXT_H
#define PM_FORMATS_READ_TEXT_H

#include "postmortem-tools.h"

/* Past these the rest is dropped and the matching *_truncated flag set. */
enum {
	TX_MAX_THREADS = 2048,
	TX_MAX_FRAMES = 1024,            /* per thread, and for the Last Exception Backtrace */
	TX_MAX_TOTAL_FRAMES = 1u << 18,  /* all threads together: bounds memory */
	TX_MAX_IMAGES = 8192,
	TX_MAX_LINES = 1024,             /* ASI lines, termination reasons, extra header lines */
};

/* A piece of the input. */
typedef struct tx_span {
	const char *p;
	size_t n;
} tx_span;

/* The section whose continuation lines the reader expects next. */
typedef enum tx_section {
	TX_NONE = 0,
	TX_ASI,      /* Application Specific Information lines */
	TX_BLOCK,    /* verbatim multi-line field (VM Region Info, Kernel Triage) */
	TX_REASONS,  /* lines after a translated Termination Reason */
	TX_LEB,      /* Last Exception Backtrace frames */
	TX_ANNOTATIONS, /* "  key: value" lines */
	TX_CRUMBS,   /* "  <time>  message" lines */
	TX_THREAD,   /* frames of the last thread */
	TX_REGS,     /* thread state rows */
	TX_IMAGES,   /* Binary Images lines */
	TX_SKIP,     /* a block we do not model, up to the next empty line */
	TX_TAIL,     /* after Binary Images: ignored up to EOF */
} tx_section;

/* Where in the report we are: decides what unknown lines mean. */
typedef enum tx_phase {
	TX_PHASE_HEADER = 0, /* unknown "Label: value" lines are header extras */
	TX_PHASE_EXCEPTION,  /* free text is Application Specific Information */
	TX_PHASE_BODY,       /* threads and later: unknown lines are ignored */
} tx_phase;

typedef struct tx_parser {
	pm_report *r;
	uint32_t line;             /* 1-based number of the current line */
	tx_section section;
	tx_phase phase;
	bool done;                 /* EOF or the Full Report banner */
	bool recognized;           /* saw a line only a crash report has */
	uint32_t first_unknown;    /* first line nothing recognised (for the error) */
	/* TX_BLOCK: the verbatim text runs from block_start to block_end in the input */
	const char **block_dst;
	const char *block_start, *block_end;
	/* capacities of the growing arrays in r */
	uint32_t thread_cap, frame_cap, leb_cap, image_cap, asi_cap, reason_cap, extra_cap;
	uint32_t annotation_cap, crumb_cap;
	uint32_t total_frames;
	bool name_pending;         /* the last thread came from a "Thread N name:" line */
	pm_regs *regs;             /* thread state being read, NULL to drop rows */
	uint32_t regs_titles;      /* thread-state titles seen */
} tx_parser;

/* ---- read_text_scan.c: lexing ------------------------------------------- */

bool pmi_tx_is_digit(char c);
bool pmi_tx_is_hex(char c);
bool pmi_tx_is_space(char c);
/* Value of a hex digit (c must be one). */
unsigned pmi_tx_hex_value(char c);
tx_span pmi_tx_span(const char *p, size_t n);
tx_span pmi_tx_trim(tx_span s);
tx_span pmi_tx_ltrim(tx_span s);
tx_span pmi_tx_rtrim(tx_span s);
tx_span pmi_tx_head(tx_span s, size_t n);   /* first n bytes */
tx_span pmi_tx_tail(tx_span s, size_t from); /* from byte `from` on */
bool pmi_tx_eq(tx_span s, const char *lit);
bool pmi_tx_starts(tx_span s, const char *lit);
/* Drop lit from the front (or back) of *s when it is there. */
bool pmi_tx_skip(tx_span *s, const char *lit);
bool pmi_tx_cut_suffix(tx_span *s, const char *lit);
/* Offset of the first lit in s (of c, of the last c), s.n when absent. */
size_t pmi_tx_find(tx_span s, const char *lit);
size_t pmi_tx_find_char(tx_span s, char c);
size_t pmi_tx_rfind_char(tx_span s, char c);
/* Whitespace-separated token at the front of *s; *s moves past it. */
tx_span pmi_tx_token(tx_span *s);
/* Leading decimal / "0x" hex number of *s; false (and *s untouched) on none or overflow. */
bool pmi_tx_take_dec(tx_span *s, uint64_t *v);
bool pmi_tx_take_hex(tx_span *s, uint64_t *v);
/* Leading hex digits without a prefix; *digits gets how many. */
bool pmi_tx_take_xdigits(tx_span *s, uint64_t *v, size_t *digits);
/* The whole span as one number. */
bool pmi_tx_dec(tx_span s, uint64_t *v);
bool pmi_tx_hex(tx_span s, uint64_t *v);
/* "name [pid]": the name (maybe empty) and pid (-1 without brackets). */
void pmi_tx_name_pid(tx_span s, tx_span *name, int64_t *pid);
/* Split "name  Dispatch queue: q" (either part optional). */
void pmi_tx_name_queue(tx_span s, tx_span *name, tx_span *queue);
/* A copy of n bytes at p in the arena, the writer's escapes undone (text_escape.h). */
const char *pmi_tx_strndup(pm_arena *a, const char *p, size_t n);
/* The same of a span; NULL for an empty span (or a full arena). */
const char *pmi_tx_copy(pm_arena *a, tx_span s);
/* The same, but "???" (Apple's "unknown") is NULL too. */
const char *pmi_tx_copy_known(pm_arena *a, tx_span s);
/* Copy into a small buffer as a C string; false when it does not fit. */
bool pmi_tx_cstr(tx_span s, char *buf, size_t cap);
/*
 * Room for one more element of an arena array holding `count` of `elem` bytes:
 * returns the array (moved when *cap doubles), NULL when the arena is full.
 */
void *pmi_tx_grow(pm_arena *a, void *arr, uint32_t count, uint32_t *cap, size_t elem);
/* Append a copy of s to an arena string array (dropped past TX_MAX_LINES). */
void pmi_tx_push_line(pm_arena *a, const char ***arr, uint32_t *count, uint32_t *cap, tx_span s);

/* ---- read_text_context.c: Annotations and Breadcrumbs -------------------- */

void pmi_tx_begin_annotations(tx_parser *p, tx_span value);
void pmi_tx_begin_crumbs(tx_parser *p, tx_span value);
/* A line of the open section (raw, with its indent); false when it ends the section. */
bool pmi_tx_annotation_line(tx_parser *p, tx_span raw);
bool pmi_tx_crumb_line(tx_parser *p, tx_span raw);

/* ---- read_text_section.c: shared by the section readers ----------------- */

void pmi_tx_begin_section(tx_parser *p, tx_section s);
void pmi_tx_end_section(tx_parser *p);
void pmi_tx_enter_phase(tx_parser *p, tx_phase ph);
/* Start collecting a verbatim multi-line field into *dst (first may be empty). */
void pmi_tx_begin_block(tx_parser *p, const char **dst, tx_span first);
/* One more line (raw) of the open block. */
void pmi_tx_extend_block(tx_parser *p, tx_span s);

/* ---- read_text_header.c ------------------------------------------------- */

/* A known header label: store it and return true. */
bool pmi_tx_header_label(tx_parser *p, tx_span key, tx_span value);
/* An unknown "Label: value" kept in header.extra. */
void pmi_tx_header_extra(tx_parser *p, tx_span key, tx_span value);
/* "2020-03-27 18:06:51.4969 -0700" and the ISO/fractionless variants. */
bool pmi_tx_time(tx_span s, pm_time *t);

/* ---- read_text_exception.c ---------------------------------------------- */

/* A known exception-block label (or one of its sections): handle it. */
bool pmi_tx_exception_label(tx_parser *p, tx_span line, tx_span key, tx_span value);
/* Labels that end a free-form run inside the exception block. */
bool pmi_tx_is_exception_key(tx_span key);
/* Signal numbers from names, now that the OS is known. */
void pmi_tx_finish_exception(pm_report *r);

/* ---- read_text_frames.c ------------------------------------------------- */

/* "Thread N …" lines of every form; true when handled. */
bool pmi_tx_thread_line(tx_parser *p, tx_span t);
/* A frame line: append it to the section's thread or backtrace. */
bool pmi_tx_frame_line(tx_parser *p, tx_span line);
/* The old "(0x… 0x… …)" Last Exception Backtrace. */
bool pmi_tx_pc_list(tx_parser *p, tx_span t);

/* ---- read_text_regs.c --------------------------------------------------- */

/* "Thread N crashed with <arch> Thread State…:" (title is the text after "with "). */
void pmi_tx_regs_begin(tx_parser *p, uint64_t number, tx_span title);
/* A register row or an x86 exception-state line; false when the line is neither. */
bool pmi_tx_regs_line(tx_parser *p, tx_span line);

/* ---- read_text_images.c ------------------------------------------------- */

bool pmi_tx_image_line(tx_parser *p, tx_span t);
/* Point every frame at its image; false when out of memory. */
bool pmi_tx_resolve_frames(pm_report *r);

#endif
