/*
 * core.h — ELF core files, read without trusting a byte of them (NOT
 * AS-safe): the kernel's (a file, or the core_pattern pipe on stdin), gdb's
 * gcore and coredumpctl dump's.  x86_64 and aarch64 cores, read on either.
 *
 * Two ways in.  A core FILE is read with pread, never whole: no size limit.
 * A core STREAM (the kernel's pipe) is read once, front to back, never held
 * whole: the notes come first, and from them the reader picks the bounded
 * ranges a capture needs (each thread's stack above its stack pointer, the
 * bytes around the crashed thread's pointers, each image's ELF header page,
 * the vDSO) before the segments go by; it hands every byte to a tee
 * callback and reads to the end, or to a cap of bytes and time.  Or it
 * stops after the notes, leaving the segments in the pipe for later (or
 * for nobody), the memory then read from the live process.  Either way the
 * notes are read by one reader as they come, and only what a report needs
 * of them is held (core_notes.c).
 *
 * Memory is then read through pmi_core_mem_read (a pm_mem reader: the
 * capture engine plugs it in as { pmi_core_mem_read, core }): the core's own
 * bytes first, then the live process (/proc/<pid>/mem, when given), then the
 * files it mapped: the descriptors given (the system reporter's, opened
 * through /proc/<pid>/map_files), else NT_FILE's paths (under a sysroot, or
 * the executable given instead) with no link followed and only when they
 * are regular files; each checked against the build id the core kept.
 *
 * The door of corefile/: this, and a thread's registers in the form the
 * capture engine takes them (core_mcontext.h).
 */
#ifndef PM_COREFILE_CORE_H
#define PM_COREFILE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "postmortem-tools.h"

typedef enum pm_core_arch {
	PM_CORE_ARCH_X86_64 = 1,
	PM_CORE_ARCH_AARCH64 = 2,
} pm_core_arch;

/* x86_64 registers in glibc's mcontext_t.gregs order (REG_R8 = 0 ... REG_CR2 = 22). */
enum { PM_CORE_X86_64_NGREG = 23 };
typedef struct pm_core_mcontext_x86_64 {
	uint64_t gregs[PM_CORE_X86_64_NGREG];
} pm_core_mcontext_x86_64;

/* aarch64 registers as the head of its mcontext_t (fault_address, x0-x30, sp, pc, pstate). */
typedef struct pm_core_mcontext_aarch64 {
	uint64_t fault_address;
	uint64_t regs[31];
	uint64_t sp, pc, pstate;
} pm_core_mcontext_aarch64;

/* A siginfo_t as the core holds it (NT_SIGINFO: the kernel's layout, 128 bytes). */
typedef struct pm_core_siginfo {
	int32_t signo, err, code;
	uint64_t addr;           /* si_addr: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP */
	int32_t sender_pid;      /* si_pid, si_uid: a signal sent by a process (si_code <= 0) */
	uint32_t sender_uid;
} pm_core_siginfo;

/* The FP/SIMD state of NT_FPREGSET: x86_64's fxsave area (512 bytes),
 * aarch64's user_fpsimd_state (v0-v31, fpsr, fpcr: 528 bytes). */
enum { PM_CORE_FPREGS_MAX = 528 };

typedef struct pm_core_thread {
	int32_t tid;             /* pr_pid */
	int32_t signal;          /* pr_cursig: the signal being delivered, 0 for most threads */
	uint64_t sigpend, sighold; /* pending and blocked signals (bit n-1: signal n) */
	uint64_t pc, sp;         /* also in mc */
	union {
		pm_core_mcontext_x86_64 x86_64;
		pm_core_mcontext_aarch64 aarch64;
	} mc;
	bool has_siginfo;        /* gdb writes one per thread, the kernel one for the process */
	pm_core_siginfo siginfo;
	uint16_t fpregs_len;     /* 0: no NT_FPREGSET for this thread */
	unsigned char fpregs[PM_CORE_FPREGS_MAX];
} pm_core_thread;

/* NT_PRPSINFO. */
typedef struct pm_core_psinfo {
	int32_t pid, ppid, pgrp, sid;
	uint32_t uid, gid;
	char state;              /* 'R', 'S', ... */
	char fname[17];          /* comm, NUL-terminated */
	char args[81];           /* the first 80 bytes of the command line, arguments split by spaces */
} pm_core_psinfo;

/* One file mapping of NT_FILE: [start, end) maps `path` from byte `offset`. */
typedef struct pm_core_mapping {
	uint64_t start, end, offset;
	const char *path;
} pm_core_mapping;

/* One PT_LOAD: [vaddr, vaddr + memsz) of which the first filesz bytes are in the core at `offset`. */
typedef struct pm_core_segment {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;          /* PF_R | PF_W | PF_X */
} pm_core_segment;

typedef struct pm_core_src pm_core_src;

typedef struct pm_core {
	pm_core_arch arch;
	/* threads[0] is the one that crashed: the kernel and gdb write it first. */
	pm_core_thread *threads;
	size_t nthreads;
	size_t threads_dropped;  /* NT_PRSTATUS notes past PM_CORE_THREADS_MAX */
	bool has_psinfo;
	pm_core_psinfo psinfo;
	bool has_siginfo;        /* the fault: the first NT_SIGINFO */
	pm_core_siginfo siginfo;
	uint64_t *auxv;          /* NT_AUXV: type, value pairs up to AT_NULL */
	size_t auxv_pairs;
	pm_core_mapping *maps;   /* NT_FILE, in its order */
	size_t nmaps;
	uint64_t page_size;      /* NT_FILE's */
	pm_core_segment *segs;   /* PT_LOAD, in header order */
	size_t nsegs;
	uint64_t size;           /* bytes of the core read or found */
	uint64_t end;            /* where the last segment's bytes end: size < end means the core was cut */
	bool stopped;            /* a stream read to a cap (bytes, time), not to its end */
	pm_core_src *src;        /* where memory comes from (core_mem.c) */
} pm_core;

/* A mapping's file as a descriptor someone who holds the process opened
 * (/proc/<pid>/map_files/<start>-<end>: the very inode mapped, no path
 * walked), for reading. */
typedef struct pm_core_mapped {
	uint64_t start, end;     /* the mapping, as NT_FILE and map_files name it */
	int fd;
} pm_core_mapped;

/* Where the files the core mapped are, and the live process. */
typedef struct pm_core_options {
	const char *sysroot;     /* NT_FILE's paths are read beneath it (NULL: none) */
	const char *exe;         /* read instead of the executable NT_FILE names (NULL: that one); for a
	                          * core that names no file (qemu-user's), mapped where AT_PHDR places it */
	int mem_fd;              /* /proc/<pid>/mem of the process the core is of, or -1 */
	/* The mapped files as descriptors, in any order (the caller keeps them
	 * open while the core is): when not NULL, a mapping's file is read
	 * through the one of its exact range alone, and no path is ever opened
	 * (sysroot and exe are not used). */
	const pm_core_mapped *mapped;
	size_t nmapped;
} pm_core_options;

/* How far a stream is read, and what is kept of it.  Zeros: the defaults below. */
typedef struct pm_core_stream_limits {
	size_t stack_bytes;      /* above each thread's stack pointer (default 256 KiB) */
	size_t keep_bytes;       /* everything kept from the segments (default 16 MiB) */
	int stall_ms;            /* give up when no byte came for this long (default 60 s) */
	uint64_t max_bytes;      /* read no byte of the stream past this many (default 32 GiB) */
	int max_ms;              /* read for no longer than this (default 300 s) */
} pm_core_stream_limits;

enum {
	PM_CORE_THREADS_MAX = 16384,
	PM_CORE_NOTES_MAX = 1 << 30,      /* the PT_NOTEs together: 64 KiB for each of 16384 threads (never held) */
	PM_CORE_NOTE_MAX = 16 << 20,      /* one note a report needs, held whole while it is read: NT_FILE, which
	                                   * the kernel writes 16 MiB of at most (kernel.core_file_note_size_limit) */
	PM_CORE_STREAM_STACK = 256 << 10,
	PM_CORE_STREAM_KEEP = 16 << 20,
	PM_CORE_STREAM_STALL_MS = 60000,
	PM_CORE_STREAM_MAX_MS = 300000,   /* docs/system-reporter.md, "Bounds" */
	PM_CORE_AROUND_REG = 256,         /* bytes kept each side of a pointer in a register of the crashed thread */
	PM_CORE_REDZONE = 128,            /* below a stack pointer: x86_64's red zone */
	PM_CORE_OVERFLOW_REACH = 64 << 10, /* a stack pointer this far below a segment overflowed its stack */
};
/* systemd-coredump's own default ProcessSizeMax: a previous handler gets no less than it would keep. */
#define PM_CORE_STREAM_MAX_BYTES ((uint64_t)32 << 30)

/* Every byte of a stream, as it is read; false: stop teeing (the stream is still read to the end). */
typedef bool pm_core_tee_fn(void *ctx, const void *buf, size_t n);

/* A pread over the core's bytes (file, memory): bytes read, 0 at its end, -1 on error. */
typedef long pm_core_pread_fn(void *ctx, void *buf, size_t n, uint64_t off);

/* Open the core file at path (pread; no size limit).  PM_E_NOTFOUND,
 * PM_E_IO, PM_E_FORMAT (not an ELF core, or a damaged one),
 * PM_E_UNSUPPORTED (another architecture, 32-bit), PM_E_LIMIT, PM_E_NOMEM;
 * why says it in one line. */
pm_err pmi_core_open(const char *path, const pm_core_options *opt, pm_core **out, char *why, size_t cap);
/* The same over any pread (fuzzers: bytes in memory); ctx must outlive the core. */
pm_err pmi_core_open_pread(pm_core_pread_fn *pr, void *ctx, uint64_t size, const pm_core_options *opt,
                           pm_core **out, char *why, size_t cap);
/* Read a core stream from fd to its end (never seeks; tee, if not NULL, gets
 * every byte, until it returns false).  On PM_OK *out holds the notes and
 * the ranges kept; on an error the stream was still read to its end (unless
 * it stalled or met a cap) and *out is NULL.  A stream longer than
 * lim->max_bytes, or that takes longer than lim->max_ms (an endless sparse
 * core streams zeros for hours), is read no further: (*out)->stopped, its
 * rest left unread in fd (close it: the kernel then ends its dump).
 * *read_bytes: how many bytes came. */
pm_err pmi_core_read_stream(int fd, const pm_core_options *opt, const pm_core_stream_limits *lim,
                            pm_core_tee_fn *tee, void *tee_ctx, pm_core **out, uint64_t *read_bytes,
                            char *why, size_t cap);
/* Read a core stream only as far as the end of its notes: the ELF header,
 * the program headers and the notes, and not a byte after the last note (in
 * a kernel's core, no byte of a segment), so fd is left where they end, at
 * *read_bytes (tee got every byte read).  Nothing of the segments is kept:
 * the core's memory then comes through opt->mem_fd, the /proc/<pid>/mem the
 * kernel holds open while the stream is unread, and the mapped files.  The
 * caps and errors of pmi_core_read_stream, but an error leaves the stream
 * where it stopped (nothing is drained).  Then either close fd (the kernel
 * ends the dump) or hand the rest to whoever needs it with
 * pmi_core_stream_rest. */
pm_err pmi_core_read_stream_notes(int fd, const pm_core_options *opt, const pm_core_stream_limits *lim,
                                  pm_core_tee_fn *tee, void *tee_ctx, pm_core **out, uint64_t *read_bytes,
                                  char *why, size_t cap);
/* The rest of a stream from offset `at` (where pmi_core_read_stream_notes
 * left it), every byte to tee (a previous core_pattern handler, a core
 * file), until the stream ends or tee returns false (PM_OK: nothing wants
 * more), the stream reaches lim->max_bytes (counted from its start) or this
 * call lim->max_ms (PM_E_LIMIT: the rest is left unread; close fd), or no
 * byte came for lim->stall_ms (PM_E_IO).  A NULL tee drains the stream.
 * *read_bytes: how many bytes this call read. */
pm_err pmi_core_stream_rest(int fd, uint64_t at, const pm_core_stream_limits *lim, pm_core_tee_fn *tee,
                            void *tee_ctx, uint64_t *read_bytes, char *why, size_t cap);
void pmi_core_close(pm_core *c);

/* pm_mem's reader over a core (ctx: the pm_core): true only when all n bytes came. */
bool pmi_core_mem_read(void *ctx, uint64_t addr, void *dst, size_t n);

/* NT_AUXV's value of type (AT_*), or 0 when the core has none. */
uint64_t pmi_core_auxv(const pm_core *c, uint64_t type);
/* The executable's mapping in NT_FILE: the one holding AT_PHDR, else AT_ENTRY; NULL when none does. */
const pm_core_mapping *pmi_core_exe_map(const pm_core *c);

/* Where the reader looks for the file the core maps at path: the executable
 * given instead (pm_core_options.exe) for the executable's, else path under
 * the sysroot (its real path); false when path is not absolute, holds a
 * ".." (a path the kernel wrote never does) or does not fit. */
bool pmi_core_local_path(const pm_core *c, const char *path, char *out, size_t cap);
/* A new descriptor of the file mapped at path (NT_FILE's, or its local path)
 * that the reader reads it from: the mapped descriptor given (dup'd), else
 * the file as the reader opens it (no link followed, a regular file, its
 * build id the core's); -1 when there is none. */
int pmi_core_open_mapped(pm_core *c, const char *path);

/* "x86_64", "aarch64". */
const char *pmi_core_arch_name(pm_core_arch a);
/* The architecture this program runs on, to compare with a core's. */
pm_core_arch pmi_core_host_arch(void);

/* A thread's registers as this machine's mcontext_t. */
#include "core_mcontext.h"

#endif
