/*
 * explain.h — the door of formats/explain, which nothing includes (pm_explain
 * is public): internal pieces of pm_explain, the facts one diagnosis gathers
 * from a report, and the growing string both renderings (text, JSON) use.
 * Offline code: allocates freely.
 */
#ifndef PM_FORMATS_EXPLAIN_H
#define PM_FORMATS_EXPLAIN_H

#include "decode.h"
#include "postmortem-tools.h"

/* Frames of the diagnosed thread shown in a diagnosis. */
#define PM_EXPLAIN_TOP_FRAMES 6
/* The last breadcrumbs a diagnosis shows. */
#define PM_EXPLAIN_CRUMBS 10

/* A growing NUL-terminated string; `failed` sticks after an allocation failure. */
typedef struct pm_sbuf {
	char *p;
	size_t len, cap;
	bool failed;
} pm_sbuf;

/* ---- explain_sbuf.c ---- */

void pmi_sbuf_printf(pm_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string, owned by the caller from now on; NULL after a failure. */
char *pmi_sbuf_take(pm_sbuf *b);

/* The termination, decoded. */
typedef struct pm_explain_term {
	const char *ns;            /* namespace as the report names it, or NULL */
	bool has_code;
	uint64_t code;
	const pm_magic_code *magic;
	const char *name;          /* the magic code's nickname, or the signal of a SIGNAL code */
	const char *meaning;
} pm_explain_term;

typedef struct pm_explain_facts {
	const pm_report *r;
	pm_os os;                  /* the report's numbering; unknown reads as Darwin */
	const pm_signal_info *sig; /* NULL when the report names no known signal */
	const char *exc_type;      /* Mach-style type, from the report or the signal */
	bool has_address;
	uint64_t address;          /* the faulting address */
	char *summary;             /* what happened, in sentences (malloc'd) */
	bool has_term;
	pm_explain_term term;
	int32_t thread;            /* diagnosed thread index, -1 when unknown */
	uint32_t top_frames;       /* frames of that thread to show */
	bool app_known;            /* the report says which image is the app */
	bool crash_image_known;    /* frame 0 names its image */
	bool crash_in_app;         /* frame 0 is in the app */
	int32_t first_app_frame;   /* first frame in the app's own code when that is not
	                              frame 0 (runtime frames passed), or -1 */
	int32_t thrown_at;         /* the same in the Last Exception Backtrace: where the
	                              exception was thrown, or -1 */
	char signature[PM_SIGNATURE_LEN + 1]; /* its crash group (docs/grouping.md) */
	char title[PM_TITLE_MAX];
} pm_explain_facts;

/* ---- explain_frames.c ---- */

/* Both strings are there and equal. */
bool pmi_explain_same(const char *a, const char *b);
/* The diagnosed thread, or NULL. */
const pm_thread *pmi_explain_thread(const pm_explain_facts *f);
/* Image column of a frame: its image's name, the name the report gave, or "???". */
const char *pmi_explain_frame_image(const pm_report *r, const pm_frame *fr);
/* The frame is in the app's main executable. */
bool pmi_explain_frame_in_app(const pm_report *r, const pm_frame *fr);
/* The frame is in a language runtime's abort or panic path (explain_runtime.c). */
bool pmi_explain_frame_in_runtime(const pm_frame *fr);
/* "  3  myapp  main + 20 (main.c:5)" without a newline. */
void pmi_explain_frame_line(pm_sbuf *b, const pm_report *r, const pm_frame *fr, uint32_t index);
/* A breadcrumb's time as the .crash prints it, NUL-terminated in buf. */
void pmi_explain_crumb_time(const pm_crumb *c, char *buf, size_t cap);
/* Index of the first breadcrumb a diagnosis shows (the last PM_EXPLAIN_CRUMBS). */
uint32_t pmi_explain_first_crumb(const pm_report *r);

/* " The CPU's exception syndrome (esr 0x…) says …." when the diagnosed thread
 * carries an arm64 esr, else nothing (explain_esr.c). */
void pmi_explain_esr(pm_sbuf *b, const pm_explain_facts *f);
/* Sets f->summary (explain_what.c); false when out of memory. */
bool pmi_explain_what(pm_explain_facts *f);
/* The JSON rendering (explain_json.c); malloc'd, NULL when out of memory. */
char *pmi_explain_json(const pm_explain_facts *f);

#endif
