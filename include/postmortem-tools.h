/*
 * postmortem-tools.h — report tooling: libpostmortem-tools (pkg-config
 * postmortem-tools), which the postmortem CLI links and which
 * libpostmortem loads on demand to upload at launch.
 *
 * One report model read from every supported format (Apple .crash and .ips,
 * the JSON twin, minidumps) and written as .crash text or a JSON twin;
 * explain, symbolication (elfutils), the report store and upload (libcurl).
 * The types an app sees too (pm_frame, pm_upload_options) come from
 * postmortem.h.
 *
 * Errors: every call here that can fail returns a pm_err (PM_OK on success,
 * pm_strerror to print it), which says what errno cannot (PM_E_FORMAT,
 * PM_E_LIMIT, ...); PM_E_IO leaves errno as the failed call set it.  Calls
 * that hand back a string or pointer (pm_explain, pm_demangle, pm_store_get,
 * ...) return NULL instead, as each says.  The app's calls in postmortem.h
 * keep the system's convention: 0, or -1 with errno set.
 *
 * A report owns its storage: pm_report_init creates it, pm_report_free
 * releases it, and strings or arrays a tool puts in a report come from
 * pm_report_alloc and pm_report_strdup.
 */
#ifndef POSTMORTEM_TOOLS_H
#define POSTMORTEM_TOOLS_H

#include "postmortem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the JSON twin schema written by this library (docs/json-schema.md). */
#define PM_SCHEMA_VERSION 1

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum pm_err {
	PM_OK = 0,
	PM_E_INVAL,       /* bad argument */
	PM_E_NOMEM,       /* out of memory */
	PM_E_IO,          /* a read or write failed; errno tells more */
	PM_E_FORMAT,      /* input is not a report we can read */
	PM_E_LIMIT,       /* input exceeds a size limit */
	PM_E_FAULT,       /* memory could not be read */
	PM_E_NOTFOUND,    /* no such file, report, symbol, ... */
	PM_E_UNSUPPORTED, /* valid input we do not handle */
} pm_err;

/* Short English description of an error code.  AS-safe. */
const char *pm_strerror(pm_err e);

/* ------------------------------------------------------------------------ */
/* The report model                                                          */
/* ------------------------------------------------------------------------ */

/* Operating system a report comes from; decides how signal numbers read. */
typedef enum pm_os {
	PM_OS_UNKNOWN = 0,
	PM_OS_LINUX,
	PM_OS_DARWIN, /* iOS, macOS, tvOS, watchOS */
} pm_os;

typedef enum pm_kind {
	PM_KIND_CRASH = 0, /* the process died of a signal or exception */
	PM_KIND_SNAPSHOT,  /* taken on request; the process went on */
	PM_KIND_HANG,      /* a watchdog saw a thread stop responding */
} pm_kind;

typedef enum pm_arch {
	PM_ARCH_UNKNOWN = 0,
	PM_ARCH_X86_64,
	PM_ARCH_ARM64,
	PM_ARCH_ARM32, /* read only */
	PM_ARCH_X86,   /* read only */
} pm_arch;

/* A point in time as reports print it: local time with its UTC offset. */
typedef struct pm_time {
	int64_t sec;        /* seconds since the Unix epoch (UTC) */
	uint32_t usec;      /* microseconds */
	int16_t tz_min;     /* local offset from UTC in minutes */
	uint8_t digits;     /* fraction digits the text shows (0..6) */
	bool set;
} pm_time;

/* A free-form "Label: value" pair kept from a header we do not model. */
typedef struct pm_kv {
	const char *key;
	const char *value;
} pm_kv;

/* One breadcrumb: what the app said it was doing, and when (pm_breadcrumb). */
typedef struct pm_crumb {
	pm_time time;
	const char *message;
} pm_crumb;

#define PM_REG_NAME_MAX 8
#define PM_MAX_REGS 48

typedef struct pm_reg {
	char name[PM_REG_NAME_MAX]; /* "rax", "x0", "cpsr", ... */
	uint64_t value;
} pm_reg;

typedef struct pm_regs {
	uint8_t arch;  /* pm_arch */
	uint8_t count;
	pm_reg reg[PM_MAX_REGS]; /* in the order the text shows them */
	/* x86 exception state */
	bool has_trap;
	uint64_t trap_number;
	uint64_t error_code;
	bool has_cpu;
	uint32_t logical_cpu;
	const char *trap_description; /* "(no mapping for user data read)" */
	/* arm64 */
	const char *esr_description;  /* "(Data Abort) byte read Translation fault" */
} pm_regs;

typedef struct pm_thread {
	uint64_t id;             /* Linux tid, Mach thread id, 0 when unknown */
	uint64_t number;         /* "Thread N" as the report numbers it (captures: the index);
	                            a report may list only some threads */
	const char *name;
	const char *queue;       /* dispatch queue (Apple) */
	bool crashed;
	bool attributed;         /* "Thread N Attributed:": the thread a resource report
	                            (EXC_RESOURCE) charges the use to */
	bool captured;           /* registers and stack were read */
	const char *note;        /* why not captured / how the walk ended */
	pm_regs *regs;           /* NULL when unknown */
	pm_frame *frames;
	uint32_t frame_count;
	bool frames_truncated;   /* the frame limit was hit */
} pm_thread;

#define PM_BUILD_ID_MAX 64

typedef struct pm_image {
	uint64_t start;          /* load address */
	uint64_t size;           /* text prints start - (start + size - 1) */
	const char *name;
	const char *arch;        /* "x86_64", "arm64e", ... */
	const char *path;
	const char *version;     /* macOS "(1.0 - 1)" text, without the parentheses */
	uint8_t build_id[PM_BUILD_ID_MAX]; /* ELF build id, or the Mach-O UUID */
	uint8_t build_id_len;
	bool is_app;             /* the main executable ('+' in some layouts) */
	char source;             /* .ips "source" letter, 0 when none */
	const char *debug_file;  /* symbolication: where debug info was found */
	const char *note;        /* symbolication: why it was not */
} pm_image;

typedef struct pm_header {
	const char *incident_id;
	const char *crash_reporter_key;
	const char *hardware_model;
	const char *process_name;
	int64_t pid;             /* -1 when unknown */
	const char *process_path;
	const char *identifier;
	const char *version;     /* as printed: "1.2 (34)" */
	const char *code_type;   /* "X86-64 (Native)" */
	const char *role;
	const char *parent_name;
	int64_t parent_pid;      /* -1 when unknown */
	const char *responsible;
	const char *coalition;
	const char *user_id;
	pm_time time;            /* Date/Time */
	pm_time launch_time;
	const char *os_version;
	const char *release_type;
	const char *baseband_version;
	const char *report_version;
	pm_kv *extra;            /* other header lines, in order */
	uint32_t extra_count;
	uint64_t start_ticks;    /* the process's start, in clock ticks since boot (proc(5)'s stat field 22):
	                            with pid, what the kernel knows it by; JSON only; 0 when unknown */
} pm_header;

typedef struct pm_exception {
	const char *type;        /* Mach-style name ("EXC_BAD_ACCESS") or the raw text */
	const char *signal_name; /* "SIGSEGV" */
	int32_t signal;          /* number in the report's own OS numbering; 0 unknown */
	bool has_si_code;
	int32_t si_code;         /* Linux siginfo code */
	bool has_address;
	uint64_t address;        /* faulting address */
	const char *subtype;     /* "KERN_INVALID_ADDRESS at 0x..." */
	const char *message;
	const char *codes;       /* Exception Codes text as printed */
	uint64_t raw_codes[4];
	uint32_t raw_code_count;
	const char *note;        /* "EXC_CORPSE_NOTIFY" */
	const char *vm_region_info;
	const char *term_namespace;      /* "SIGNAL", "FRONTBOARD", ... */
	bool has_term_code;
	uint64_t term_code;
	const char *term_indicator;      /* "Segmentation fault: 11" (classic: Termination Signal) */
	const char **term_reasons;       /* extra Termination Reason lines */
	uint32_t term_reason_count;
	const char *term_description;
	uint32_t term_flags;
	const char *terminating_process; /* "exc handler" */
	int64_t terminating_pid;         /* -1 when unknown */
	int32_t triggered_thread;        /* number (pm_thread.number) of the thread, -1 when unknown */
	bool highlighted;                /* the report names it "Highlighted Thread" (old iOS
	                                    kills): highlighted, not triggering */
	const char **asi;                /* Application Specific Information lines */
	uint32_t asi_count;
	const char *kernel_triage;
} pm_exception;

/* The storage a report owns: its strings and arrays.  Opaque; pm_report_alloc and
 * pm_report_strdup add to it, pm_report_free releases it. */
typedef struct pm_arena pm_arena;

typedef struct pm_report {
	pm_arena *arena;         /* owns everything below */
	uint8_t kind;            /* pm_kind */
	uint8_t os;              /* pm_os */
	uint8_t format;          /* pm_format it was read from (not a fact of the report) */
	bool complete;           /* the writer finished (JSON twin) */
	pm_header header;
	pm_exception exception;
	pm_thread *threads;
	uint32_t thread_count;
	bool threads_truncated;
	pm_image *images;
	uint32_t image_count;
	bool images_truncated;
	pm_frame *last_exception_backtrace;
	uint32_t leb_count;
	pm_kv *annotations;      /* pm_annotate's keys and values at the crash */
	uint32_t annotation_count;
	pm_crumb *breadcrumbs;   /* pm_breadcrumb's last messages, oldest first */
	uint32_t breadcrumb_count;
	const char *os_name;     /* Linux: "Linux" (uname sysname); JSON only */
	const char *signature;   /* its crash group as the crash handler computed it (JSON only; NULL:
	                            not carried): read it through pm_report_group */
	const char *title;       /* that group's title, as carried (JSON only) */
} pm_report;

/* Empty report that owns storage of its own, growing as readers fill it.  Out of memory
 * here shows as PM_E_NOMEM from the first call that fills it. */
void pm_report_init(pm_report *r);
/* Free everything the report owns; pm_report_init it again to reuse it. */
void pm_report_free(pm_report *r);
/* n bytes, zeroed and aligned to `align` (a power of two; 0 means 1), that live as long as
 * the report: for strings and arrays a tool puts in it.  NULL when out of memory. */
void *pm_report_alloc(pm_report *r, size_t n, size_t align);
/* A copy of s that lives as long as the report (NULL stays NULL); NULL when out of memory. */
const char *pm_report_strdup(pm_report *r, const char *s);
/* Index of the crashed thread: the one marked crashed, else the one numbered triggered_thread,
 * else -1. */
int32_t pm_report_crashed_thread(const pm_report *r);
/* Index of the image containing addr, or -1.  AS-safe. */
int32_t pm_report_image_for(const pm_report *r, uint64_t addr);
/* Hex digits of a crash signature (docs/grouping.md). */
#define PM_SIGNATURE_LEN 16
/* Bytes of a crash group's title, its NUL included. */
#define PM_TITLE_MAX 160
/*
 * The crash group of a report (docs/grouping.md): a signature, the same for
 * every crash of one site whatever its addresses, machine or build (as long
 * as the functions on the way did not change), and a short title
 * ("SIGSEGV in parse_header").  The ones r carries when its signature is
 * well-formed (the crash handler writes both into the JSON twin), else
 * computed from its crashed thread's frames and its exception exactly as the
 * crash handler computes them.  Always fills both.  AS-safe.
 */
void pm_report_group(const pm_report *r, char signature[PM_SIGNATURE_LEN + 1], char title[PM_TITLE_MAX]);
/*
 * The debug id of an image in a report of OS `os` (docs/identifiers.md): Linux
 * (ELF) build ids cut or zero-padded to 16 bytes, then read as a little-endian
 * GUID, as Sentry and Breakpad do; other reports' 16-byte UUIDs as they are.
 * False (and 16 zeros) when the image has no build id.  AS-safe.
 */
bool pm_image_debug_id(const pm_image *img, uint8_t os, uint8_t out[16]);

/* ------------------------------------------------------------------------ */
/* Readers (allocate; never run in a signal handler)                         */
/* ------------------------------------------------------------------------ */

typedef enum pm_format {
	PM_FORMAT_UNKNOWN = 0,
	PM_FORMAT_JSON,        /* postmortem's JSON twin */
	PM_FORMAT_TEXT,        /* Apple-style .crash text (any layout) */
	PM_FORMAT_IPS,         /* Apple .ips: metadata line + JSON body (bug_type 309) */
	PM_FORMAT_IPS_TEXT,    /* metadata line + classic text body */
	PM_FORMAT_TRANSLATED,  /* Console's "Translated Report (Full Report Below)" */
	PM_FORMAT_MINIDUMP,    /* Breakpad/Crashpad minidump (MDMP), as postmortem writes beside a report */
} pm_format;

/* Where and why reading failed. */
typedef struct pm_read_error {
	uint32_t line;     /* 1-based line of the problem, 0 when not tied to a line */
	char message[200];
} pm_read_error;

/* Largest input the readers accept. */
#define PM_READ_MAX_BYTES (64u * 1024u * 1024u)

/* Guess the format from the content (never the file name). */
pm_format pm_detect_format(const char *data, size_t len);
/* Name of a format ("json", "crash", "ips", ...). */
const char *pm_format_name(pm_format f);
/*
 * Every reader fills a report the caller prepared with pm_report_init (and
 * frees with pm_report_free, also after an error), and sets r->format.
 */
/* Read a report of any supported format into r. */
pm_err pm_read_report(const char *data, size_t len, pm_report *r, pm_read_error *err);
/* Read a report from a file (errors: PM_E_NOTFOUND, PM_E_IO, PM_E_LIMIT, PM_E_FORMAT). */
pm_err pm_read_report_file(const char *path, pm_report *r, pm_read_error *err);
/* Read one specific format. */
pm_err pm_read_json(const char *data, size_t len, pm_report *r, pm_read_error *err);
pm_err pm_read_text(const char *data, size_t len, pm_report *r, pm_read_error *err);
pm_err pm_read_ips(const char *data, size_t len, pm_report *r, pm_read_error *err);
/* A minidump: registers and frame 0 of each thread (its stack memory is left for a
 * debugger to unwind), modules with build ids, the signal. */
pm_err pm_read_minidump(const char *data, size_t len, pm_report *r, pm_read_error *err);

/* ------------------------------------------------------------------------ */
/* Writers                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A report written as Apple-style .crash text (PM_FORMAT_TEXT) or as its JSON
 * twin (PM_FORMAT_JSON, docs/json-schema.md); any other format is
 * PM_E_UNSUPPORTED.  The same writers run in the crash handler.  Errors:
 * PM_E_INVAL (no report, fd < 0, no callback), PM_E_IO (a write failed, or
 * the callback said stop), PM_E_NOMEM.
 */
pm_err pm_write_report_fd(const pm_report *r, pm_format f, int fd);
/* Receives the output in pieces, in order; false stops the writer. */
typedef bool pm_write_fn(void *ctx, const char *p, size_t n);
pm_err pm_write_report_cb(const pm_report *r, pm_format f, pm_write_fn *fn, void *ctx);
/* Into a malloc'd, NUL-terminated string (*out; its length in *len when len is not NULL);
 * *out is NULL on error. */
pm_err pm_write_report_string(const pm_report *r, pm_format f, char **out, size_t *len);

/* ------------------------------------------------------------------------ */
/* Symbolication (any time; uses elfutils)                                   */
/* ------------------------------------------------------------------------ */

typedef struct pm_symbolicate_options {
	const char *const *debug_dirs; /* more places to look, beside /usr/lib/debug */
	size_t debug_dir_count;
	/* Also ask the debuginfod servers of $DEBUGINFOD_URLS, through elfutils' client and
	 * its cache, for what no local file gives (docs/symbolication.md).  false: local files only. */
	bool debuginfod;
	/* A download from them so far (bytes received and in all), for a progress line; NULL:
	 * none of ours (DEBUGINFOD_PROGRESS then keeps the client's own). */
	void (*progress)(void *ctx, const char *image, long done, long total);
	/* Called once when the servers cannot be reached (down, silent past DEBUGINFOD_TIMEOUT,
	 * ...), with the note the image asked for gets too; may be NULL. */
	void (*unreachable)(void *ctx, const char *note);
	void *ctx;                     /* for progress and unreachable */
} pm_symbolicate_options;

/*
 * Give every frame whose image's debug information can be found by build id
 * its function (demangled), file, line, column and inlined callers (as extra
 * frames at the same address, marked inlined).  Sources, in order: the image
 * file at its recorded path when its build id matches, its .gnu_debuglink,
 * /usr/lib/debug/.build-id/xx/rest.debug, then each debug dir.  Apple
 * reports' images are found by UUID: dSYM bundles and Mach-O files in the
 * debug dirs (docs/symbolication.md); then, with opt->debuginfod, the
 * debuginfod servers, each build id asked once, and none after one failed.
 * An image that cannot be used keeps its names and gets a note saying why.
 * A build id or UUID mismatch is never accepted, from a server neither.
 * Returns PM_OK even when some images could not be used.
 */
pm_err pm_symbolicate(pm_report *r, const pm_symbolicate_options *opt);

/*
 * A mangled name as people read it: C++ (Itanium ABI), Rust (legacy, without
 * its hash, and v0) and D, as binutils prints them.  malloc'd; NULL when
 * `name` is not a mangled name.  Display time only: not AS-safe.
 */
char *pm_demangle(const char *name);

/*
 * text with each mangled name in it demangled (a name is a run of letters,
 * digits, '_', '$' and '.'): malloc'd, or NULL when text holds none.
 */
char *pm_demangle_text(const char *text);

/*
 * Demangle every frame's symbol in place (threads and Last Exception
 * Backtrace), and the names in Application Specific Information (an
 * uncaught C++ exception's type); names already readable are kept.  pm_symbolicate ends with it,
 * so frames named at crash time from .symtab read like those from DWARF.
 */
pm_err pm_demangle_report(pm_report *r);

/*
 * Write the pre-parsed symbol table of each image the debug file at `path`
 * describes (an ELF file with its build id; a dSYM or Mach-O file, one per
 * slice, by UUID) into `dir` as <id in hex>.pmsym: every answer
 * pm_symbolicate would give, as ranges of addresses.  pm_symbolicate uses
 * such a table, found in a debug dir by the image's id, instead of the DWARF.
 * msg (may be NULL) gets the paths written, one a line, or what failed.
 */
pm_err pm_symbols_build(const char *path, const char *dir, char *msg, size_t msg_len);

/*
 * The same for the image of a build id (hex, `build_id`), its debug file found as
 * pm_symbolicate finds it with opt (may be NULL): /usr/lib/debug/.build-id, the debug
 * dirs, then debuginfod (the executable when no debug file is there: a table of its
 * symbols).  PM_E_INVAL: not a build id; PM_E_NOTFOUND: no file of it, msg says where
 * it was looked for.
 */
pm_err pm_symbols_build_id(const char *build_id, const char *dir, const pm_symbolicate_options *opt, char *msg,
                           size_t msg_len);

/* ------------------------------------------------------------------------ */
/* The report store: pending reports on the next launch                      */
/* ------------------------------------------------------------------------ */

typedef enum pm_report_state {
	PM_STATE_PENDING = 0,    /* written whole, not delivered yet */
	PM_STATE_PARTIAL,        /* torn while being written; salvaged as far as possible */
	PM_STATE_QUARANTINED,    /* unreadable or rejected; the reason is kept beside it */
	PM_STATE_SENT,           /* delivered (kept only when the policy says so) */
} pm_report_state;

typedef struct pm_store_options {
	const char *dir;         /* NULL: the pm_install directory, else as pm_install resolves it */
	uint32_t max_pending;    /* 0: 100 reports; the oldest go first */
	uint64_t max_bytes;      /* 0: 50 MiB */
	bool keep_sent;          /* move delivered reports to sent/ instead of deleting them */
	uint32_t crash_loop_count;   /* 0: 3 crashes ... */
	uint32_t crash_loop_seconds; /* 0: ... each within 10 s of launch */
	bool read_only;          /* look, never write: no directory is created, nothing salvaged,
	                          * quarantined, capped or removed (a torn report lists as partial,
	                          * with the reason), and changing a report is refused (PM_E_INVAL) */
	/* Storm control (docs/store.md): of the pending reports of one crash group, the first
	 * storm_first and the latest storm_last are kept, the others only counted.  0: the
	 * numbers $POSTMORTEM_STORM_KEEP gives ("FIRST,LATEST"), else 3 and 3. */
	uint32_t storm_first;
	uint32_t storm_last;
} pm_store_options;

typedef struct pm_store_entry {
	char id[64];             /* incident id: the file names without extension */
	pm_report_state state;
	int64_t time;            /* crash time, seconds since the epoch (0 unknown) */
	char app[128];           /* process name */
	char exception[96];      /* "EXC_BAD_ACCESS (SIGSEGV)" */
	uint64_t bytes;          /* size of its files (text, JSON twin, minidump) */
	bool crash_loop;         /* part of a detected crash loop: deliver first */
	const char *reason;      /* quarantine reason, why a partial report is text only, or NULL */
	char signature[PM_SIGNATURE_LEN + 1]; /* its crash group (pm_report_group); "" when it did not read */
	char title[PM_TITLE_MAX];
} pm_store_entry;

typedef struct pm_store pm_store;

/*
 * Open the reports directory: salvage torn reports, quarantine unreadable
 * ones, enforce the caps (logging what was dropped to stderr), and list what
 * is left, crash-loop reports first, then oldest first.  Never crashes on a
 * bad file.  Memory stays bounded however many reports there are.
 * PM_E_NOTFOUND when the reports directory does not exist (nothing to do).
 * The listing is a snapshot: marking a report sent or quarantined updates
 * its entry's state in place, and no entry moves or goes away before
 * pm_store_close, so a list can be walked while its reports are handled.
 * One thread at a time per store.
 */
pm_err pm_store_open(pm_store **out, const pm_store_options *opt);
void pm_store_close(pm_store *s);
/* Reports of a state as pm_store_open found them, in delivery order. */
size_t pm_store_count(const pm_store *s, pm_report_state state);
const pm_store_entry *pm_store_get(const pm_store *s, pm_report_state state, size_t i);
/* Load a report into r (initialized here; pm_report_free it afterwards); partial reports load
 * what was salvaged. */
pm_err pm_store_load(pm_store *s, const char *id, pm_report *r, pm_read_error *err);
/* Paths of a report's files (text, JSON); NULL where a file is absent.  Valid until the next call. */
pm_err pm_store_paths(pm_store *s, const char *id, const char **crash_path, const char **json_path);
/* Path of a report's minidump (<id>.dmp), NULL when it has none.  Valid until the next call. */
const char *pm_store_minidump_path(pm_store *s, const char *id);
/* A report was delivered: delete it, or move it to sent/ (keep_sent). */
pm_err pm_store_mark_sent(pm_store *s, const char *id);
/* Move a report to quarantine/ with the reason in <id>.reason. */
pm_err pm_store_quarantine(pm_store *s, const char *id, const char *reason);
/* Delete a report wherever it is. */
pm_err pm_store_delete(pm_store *s, const char *id);
/* Which crashes a listing shows: a time window and an app (docs/store.md, "Crash groups"). */
typedef struct pm_store_filter {
	int64_t since;           /* crashed at or after (seconds since the epoch); 0: no bound */
	int64_t until;           /* crashed at or before; 0: no bound */
	const char *app;         /* the entry's app (process name) is this; NULL: any */
} pm_store_filter;

/* True when e passes f (NULL: every entry).  An entry whose time is unknown passes no time bound. */
bool pm_store_filter_match(const pm_store_filter *f, const pm_store_entry *e);

/* One crash group of a store: every crash of one signature it knows of. */
typedef struct pm_store_group {
	char signature[PM_SIGNATURE_LEN + 1];
	char title[PM_TITLE_MAX];
	uint64_t count;          /* crashes: reports + dropped + sent */
	uint32_t reports;        /* reports the store holds (any state) */
	uint64_t dropped;        /* crashes storm control or the caps counted without keeping their files */
	uint64_t sent;           /* crashes delivered whose reports were deleted then (keep_sent off) */
	bool count_exact;        /* false: a time bound falls inside the span the dropped and sent ones
	                          * crashed over, and all of them are counted */
	int64_t first_time;      /* its first and last crash, seconds since the epoch (0 unknown) */
	int64_t last_time;
	char apps[256];          /* the apps it crashed, ", " between them (cut when longer) */
	char latest_id[64];      /* its newest report, "" when none is kept */
} pm_store_group;

/*
 * The crashes of s that pass f (NULL: all), one group per signature: the reports it lists
 * and the crashes it only counted (pending/.groups/, docs/store.md), oldest last crash
 * first, into *out (malloc'd, *count of them; free() it; NULL when there are none).
 * PM_E_NOMEM, PM_E_INVAL.
 */
pm_err pm_store_groups(pm_store *s, const pm_store_filter *f, pm_store_group **out, size_t *count);
/* True when the last crashes of this program form a crash loop (see pm_store_options;
 * the default count and window): the app may start in a safe mode.  Reads the pm_install
 * directory, only the newest few reports' headers. */
bool pm_crash_loop_detected(void);

/* ------------------------------------------------------------------------ */
/* Release health: a session per run (docs/sentry.md, docs/store.md)          */
/* ------------------------------------------------------------------------ */

typedef enum pm_session_status {
	PM_SESSION_EXITED = 0,   /* ended by exit(), a return from main or _exit, whatever its code */
	PM_SESSION_CRASHED,      /* a crash report was written */
	PM_SESSION_ABNORMAL,     /* ended with neither: SIGKILL, the OOM killer, a power loss */
} pm_session_status;

/* A run that ended, as pm_store_open collected it from the runs file. */
typedef struct pm_session {
	char sid[37];            /* Sentry's session id (a UUID) */
	int64_t pid;
	char app_id[256];        /* as its reports' Identifier */
	char app_version[128];   /* as their Version: "???" when unknown */
	char release[400];       /* "<app_id>@<version>" as Sentry's events name it; "" when the
	                            version is unknown (Sentry drops such a session: never sent) */
	int64_t started_us;      /* when the run began: microseconds since the epoch */
	int64_t ended_us;        /* when it ended (a crash: the report's time); 0 when unknown */
	pm_session_status status;
	int exit_code;           /* exited: its code; -1 otherwise */
	int signal;              /* the signal that ended it, when known (crashed; `postmortem run`) */
	uint32_t errors;         /* as Sentry counts them: the crash, a non-zero exit code, hang reports */
	char mechanism[32];      /* abnormal, when it can be told: "oom_kill", "reboot", or the signal
	                            ("SIGKILL") `postmortem run` saw; "" otherwise */
	char report[64];         /* crashed: the report's id */
	bool sent;               /* delivered to Sentry, or (no release) never to be */
} pm_session;

/* The sessions of s, oldest first: those waiting for delivery, then those sent. */
size_t pm_store_session_count(const pm_store *s);
const pm_session *pm_store_session_get(const pm_store *s, size_t i);

/* One release's runs, as Sentry's release health counts them. */
typedef struct pm_release_stats {
	char release[400];       /* pm_session.release; "<app_id> (version unknown)" when it has none */
	uint32_t runs;           /* every session below */
	uint32_t exited;         /* exited without errors */
	uint32_t errored;        /* exited with errors (a non-zero code, hangs) */
	uint32_t crashed;
	uint32_t abnormal;
	uint32_t oom_kills;      /* of the abnormal: the OOM killer's, as far as it can be told */
	double crash_free;       /* (runs - crashed) / runs */
	int64_t last_started_us; /* the newest run's start */
} pm_release_stats;

/* Per release, from the store's sessions (sent and not): a malloc'd array in order of the
 * newest run first (*count of them; free() it), NULL with *count 0 when there are none. */
pm_release_stats *pm_store_release_stats(const pm_store *s, size_t *count);

/*
 * A program's run watched from outside (`postmortem run`): its session is recorded by
 * the watcher, which sees how it ended (SIGKILL too); the program itself records none
 * (the watcher sets POSTMORTEM_SESSIONS=0 for it).  pm_run_watch_start before the program
 * starts, pm_run_watch_spawned once its pid is known (it names the executable from
 * /proc, else from `program`, its path or name, when it ended already), pm_run_watch_end with its waitpid status (-1: unknown, the run then ends
 * abnormal; always call it: it lets go of the runs file).  Release: $POSTMORTEM_APP_ID (else the
 * executable's name) and $POSTMORTEM_APP_VERSION, as the preload library names its reports.
 */
typedef struct pm_run_watch {
	uint64_t started_us;
	int64_t oom_kills;       /* the memory cgroup's OOM kills at start, -1 unknown */
	char oom_file[256];
	int fd;                  /* the runs file, its record locked while the program runs */
	unsigned slot;
	uint64_t end_at;
} pm_run_watch;

void pm_run_watch_start(pm_run_watch *w, const char *reports_dir);
pm_err pm_run_watch_spawned(pm_run_watch *w, int64_t pid, const char *program);
pm_err pm_run_watch_end(pm_run_watch *w, int wait_status);

/* ------------------------------------------------------------------------ */
/* Upload (libcurl)                                                          */
/* ------------------------------------------------------------------------ */

typedef struct pm_upload_result {
	uint32_t sent;               /* delivered (2xx) */
	uint32_t kept;               /* still pending (network down, 5xx, 429 after retries) */
	uint32_t quarantined;        /* rejected by the server (4xx other than 408/429) */
	/* Sessions (with a DSN only: docs/sentry.md, "Sessions") */
	uint32_t sessions_sent;      /* delivered, in their crash's envelope or in envelopes of their own */
	uint32_t sessions_kept;      /* still waiting (the server unreachable, rate limited, ...) */
	uint32_t sessions_unversioned; /* never sent: no release (the version unknown), which Sentry drops */
} pm_upload_result;

/* One delivery pass over the pending reports of s, with retries.  Blocking. */
pm_err pm_upload_pending(pm_store *s, const pm_upload_options *opt, pm_upload_result *res);
/* PM_OK when pm_upload_pending would take opt's destination (url or dsn),
 * environment and headers; PM_E_INVAL, the reason on stderr (never a key or
 * a header's value), otherwise.  Nothing is sent. */
pm_err pm_upload_options_check(const pm_upload_options *opt);
/*
 * Deliver the pending reports of reports_dir on a background thread (never
 * delays the caller): a pass at once, then one every five minutes.  This is
 * what libpostmortem's pm_upload_start runs once it has found a pending
 * report.  PM_E_INVAL for refused options or when an uploader already runs
 * (one at a time), PM_E_NOMEM.
 */
pm_err pm_upload_thread_start(const char *reports_dir, const pm_upload_options *opt);
/* Stop the background thread, waiting at most timeout_ms for the request in flight. */
void pm_upload_thread_stop(uint32_t timeout_ms);

/* ------------------------------------------------------------------------ */
/* Diagnosis                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * A short diagnosis a person can act on: what happened in plain words, which
 * thread, its top frames, the image the crash is in (app or library) and any
 * decoded termination code.  Plain text, or a JSON object when `json`.
 * Returns a malloc'd NUL-terminated string (NULL when out of memory).
 */
char *pm_explain(const pm_report *r, bool json);
#ifdef __cplusplus
}
#endif
#endif /* POSTMORTEM_TOOLS_H */
