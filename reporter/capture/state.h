/*
 * state.h — everything the crash handler needs, prepared by pm_install.
 *
 * install.c fills it (may allocate); the as_* files only read the prepared
 * parts and write the crash-time parts.  Nothing here is allocated at crash
 * time: the region below is mapped once at install.
 */
#ifndef PM_REPORTER_STATE_H
#define PM_REPORTER_STATE_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <ucontext.h>

#include "as_images.h"
#include "as_symbols.h"
#include "postmortem-tools.h"

/* PM_SPARE_FDS: descriptors held from install, freed for the handler's own opens (as_fds.h). */
enum { PM_MAX_SIGNALS = 16, PM_SPARE_FDS = 4 };

/* One per thread at crash time; the freeze handler fills its own. */
enum { SLOT_EMPTY = 0, SLOT_ASKED, SLOT_CAPTURED, SLOT_BLOCKED /* blocks the signal: not waited for */ };

typedef struct pm_slot {
	_Atomic int tid;          /* owner; claimed by CAS from 0 */
	_Atomic int state;        /* SLOT_* */
	int signal;               /* non-zero: the thread crashed too, with this signal */
	char name[16];            /* its name, told by itself when it answered ("": ask /proc) */
	mcontext_t mc;            /* registers when the thread stopped */
} pm_slot;

/* A live backtrace of one thread (pm_backtrace_thread): the requester fills
 * tid and sets SAMPLE_ASKED; the thread copies its registers, sets
 * SAMPLE_TAKEN and waits (bounded) for SAMPLE_DONE before going on. */
enum { SAMPLE_IDLE = 0, SAMPLE_ASKED, SAMPLE_TAKEN, SAMPLE_DONE };
/* What a tagged control signal asks for (its si_value; as_control.c). */
enum { PM_CONTROL_SAMPLE = 0x706d5350, PM_CONTROL_SETUP = 0x706d5355, PM_CONTROL_FREEZE = 0x706d5346 };
/* (as_chain.h adds the watch timer's AS_CHAIN_WATCH and its probe's AS_CHAIN_PROBE.) */

typedef struct pm_sample {
	int tid;
	int state;                /* futex word: SAMPLE_* */
	mcontext_t mc;
} pm_sample;

/* Facts a report alone needs, read by the first capture (as_facts.c: system
 * calls and small files).  Apart from pm_facts, so that they sit after what
 * install writes (pm_state) instead of in the middle of it. */
typedef struct pm_late_facts {
	int state;                 /* unread, being read, read (as_facts.c) */
	char os_version[512];
	char hardware_model[256];
	pm_time launch_time;
	uint64_t start_ticks;      /* what launch_time was computed from: stat's field 22 */
	char kernel[512];          /* "Linux 6.1.0-18-amd64 #1 SMP … x86_64" (uname -srvm) */
	uint32_t kernel_version[3]; /* major, minor, patch of the release */
	int minidump_state;        /* the same for what only the minidump shows: */
	uint8_t cpu_count;         /* online CPUs, 255 at most */
	uint64_t environ_start, environ_end; /* the initial environment's strings (0, 0: unknown) */
} pm_late_facts;

/* Facts about the process gathered at install: what needs libc, or catching
 * a crash needs; and where the late ones are. */
typedef struct pm_facts {
	const char *exe_path;      /* in pm_state's path pool */
	char exe_name[256];
	char app_id[256];
	char app_version[128];
	char os_name[64];          /* "Linux" until uname says */
	int16_t tz_min;            /* localtime_r's: not AS-safe */
	long clock_ticks;          /* per second, for the launch time */
	uint64_t abort_msg_var;    /* &__abort_msg, glibc's last assert/abort message (0: not glibc) */
	bool emulated;             /* under qemu-user (docs/arm64.md): its quirks are worked around */
	bool go_text_looked;       /* go_text.c: looked for once another's handler sat beside ours */
	bool go_exe;               /* the executable is Go's (its range may be unknown: stripped) */
	uint64_t go_text_lo, go_text_hi; /* a Go executable's own code (0, 0: none, or not looked for) */
	pm_late_facts *late;       /* pm_state's late_facts */
} pm_facts;

/* Room for the three paths install writes (the reports directory, its
 * pending/, the executable), each PATH_MAX at most. */
enum { PM_PATH_POOL = 3 * PATH_MAX };

/* What a capture writes besides the storage: in the region pm_install maps
 * (its first piece), not in .data.  A .data page is mapped read-only from
 * the file as soon as anything near it is read, and the first write into it
 * then copies it: 25-60 us a page on the paravirtualized guest
 * docs/benchmarks.md measures on, where a fresh anonymous page populated
 * ahead costs about 5 (as_prefault.h). */
typedef struct pm_capture_state {
	pm_late_facts late_facts;  /* written by the first capture */
	siginfo_t crash_info;
	mcontext_t crash_mc;
	pm_report report;
	pm_crash_phases phases;   /* of the capture under way, for the crash callback */
	pm_as_images images;
	char crash_path[PATH_MAX];
	char json_path[PATH_MAX];
	char minidump_path[PATH_MAX];
} pm_capture_state;

/* Laid out so that what pm_install writes comes first and shares as few
 * pages as it can (each fresh page costs a process's start a fault): the
 * crash-time words, the configuration, the storage's places, the facts,
 * then the paths packed one after another, short as they mostly are.  The
 * crash-time words come first so that a crash writes them in the page the
 * loader and pm_install have written already; what else a crash writes is
 * in the region (pm_capture_state).  as_g starts in the .data page the
 * loader has written already (as_state.c, start_data.h), so that this
 * costs one fresh page. */
typedef struct pm_state {
	bool installed;

	/* crash time */
	_Atomic int owner;        /* tid of the thread writing the report */
	_Atomic int nesting;      /* faults taken by the owner inside the handler */
	int release;              /* futex word, a generation: frozen threads go on when it changes */
	int answers;              /* futex word: threads that answered the freeze signal */
	int answers_wanted;       /* the answer that wakes the reporting thread (INT_MAX: none yet) */
	int crash_signal;         /* 0 while no crash is being reported */
	bool written;             /* the crash report is on disk */

	/* configuration */
	const char *reports_dir;  /* in paths */
	const char *pending_dir;  /* in paths */
	int pending_fd;           /* held from install (as_fds.c), -1 if none */
	dev_t pending_dev;        /* what pending_fd must still be */
	ino_t pending_ino;
	int spare_fds[PM_SPARE_FDS]; /* freed for the handler's own opens */
	int signals[PM_MAX_SIGNALS];
	struct sigaction previous[PM_MAX_SIGNALS];
	size_t signal_count;
	int freeze_signal;
	struct sigaction previous_freeze;
	uint32_t max_threads, max_frames, freeze_timeout_ms;
	uint32_t handler_timeout_ms; /* how long a handler given a fault first may take (as_chain.h) */
	pm_crash_callback *on_crash;
	void *on_crash_ctx;
	bool minidump;            /* write <id>.dmp beside each report */
	bool minidump_environ;    /* with /proc/self/environ in it */

	/* preallocated storage, one anonymous mapping */
	void *region;
	size_t region_size;
	pm_capture_state *cap;    /* the region's first piece */
	void *arena_mem;          /* the report's fixed arena */
	size_t arena_size;
	pm_slot *slots;           /* max_threads, open addressing by tid */
	pm_as_image *as_images;
	pm_image *model_images;   /* image_cap: the report's images, outside the arena so that a
	                             capture touches only the entries it fills (no zeroing) */
	pm_as_map *as_maps;
	size_t image_cap, map_cap;
	char *io_buf;             /* writer buffer */
	size_t io_cap;
	char *scratch;            /* line and directory reads */
	size_t scratch_cap;
	pm_frame *frame_tmp;      /* max_frames: one thread's walk */
	pid_t *tids;              /* max_threads: the threads listed */
	pm_as_symbols symbols;    /* in-handler symbol names (a handle: install touches no page of it) */
	pm_mem_cache *mem_cache;  /* pages read during one capture */
	struct pm_cfi_cache *cfi_cache; /* CFI rows found during one capture */
	pm_mem mem;               /* the reader a capture uses (through mem_cache) */
	struct pm_md_range *md_ranges; /* the minidump's memory ranges */
	size_t md_range_cap;

	pm_facts facts;
	char paths[PM_PATH_POOL];

	pm_sample sample;
	unsigned capture_generation; /* counts captures: a live report is stale once it moves */
} pm_state;

extern pm_state as_g;

#endif
