/*
 * system.h — the system reporter: kernel.core_pattern pointed at
 * postmortem's core handler, the handler's facts about the crashed process,
 * where its report goes and with whose credentials, and the handler that
 * was there before (docs/system-reporter.md).  NOT AS-safe.
 */
#ifndef PM_SYSTEM_SYSTEM_H
#define PM_SYSTEM_SYSTEM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "postmortem-tools.h"

/* The kernel's limit on kernel.core_pattern (CORENAME_MAX_SIZE, with its NUL). */
enum { PM_PATTERN_MAX = 128, PM_GROUPS_MAX = 1024 };

/* What the kernel says of a crash in the handler's arguments (core(5)'s
 * specifiers; PM_SYSTEM_SPECIFIERS lists them in order).  %F, last, is the
 * pidfd the kernel installs (Linux 6.16); a kernel without it expands it to
 * nothing, and a pattern enable wrote before lacks it. */
#define PM_SYSTEM_SPECIFIERS "%P %p %I %i %u %g %s %t %d %c %h %e %E %F"
typedef struct pm_crash_args {
	int pid, pid_ns;          /* %P: in the initial pid namespace; %p: in its own */
	int tid, tid_ns;          /* %I, %i: the thread that dumped */
	uint32_t uid, gid;        /* %u, %g: real ids */
	int signal;               /* %s */
	int64_t time;             /* %t */
	int dumpable;             /* %d: 1, or 2 for a set-user-ID (or otherwise changed) process */
	uint64_t core_limit;      /* %c: RLIMIT_CORE's soft limit */
	char host[65];            /* %h, %e, %E as the kernel wrote them ('/' as '!') */
	char comm[64];
	char exe_bang[PATH_MAX];
	int pidfd;                /* %F: the descriptor the kernel gave, or -1 */
} pm_crash_args;

/* What /proc/<pid> says, read as root through the pinned directory
 * (proc_pin.c): the kernel's fields only, nothing the process wrote. */
typedef struct pm_proc_facts {
	uid_t uid[4];             /* real, effective, saved, filesystem */
	gid_t gid[4];
	gid_t groups[PM_GROUPS_MAX];
	size_t ngroups;
	mode_t umask;
	int ppid;
	bool same_mount_ns;       /* as the handler's: its paths mean what they say here */
	uint64_t start_time;      /* when it started, seconds since the epoch */
	char exe[PATH_MAX];       /* readlink /proc/<pid>/exe */
} pm_proc_facts;

/* The crashed process pinned: its /proc directory opened once (a
 * directory of /proc/<pid> refers to that process; a pid used again does
 * not reach through it), and what proves the process it opened was the
 * crashed one. */
typedef struct pm_proc {
	int pid;
	int dir;                  /* /proc/<pid>, or -1 */
	int pidfd;                /* the kernel's (%F), or -1 */
	uint64_t start_ticks;     /* stat's field 22 */
} pm_proc;

/* Bytes of /proc the analysis reads, taken by root through the pinned
 * directory before anyone parses them (proc_snapshot.c), and the OS's
 * facts files: served to the engine by path (as_files_serve). */
typedef struct pm_snap_file {
	char *path;
	char *data;
	size_t len;
} pm_snap_file;
typedef struct pm_proc_snapshot {
	pm_snap_file *files;      /* sorted by path */
	size_t n, cap;
	char *env;                /* its environment, raw (parsed only by its children) */
	size_t env_len;
	bool proc;                /* its /proc files are there (same pid namespace) */
	bool cut;                 /* a bound was met or the process ended while it was read */
} pm_proc_snapshot;

/* What its environment says, parsed by a child of the handler, never by
 * root (proc_env.c): where pm_install would put reports, the app's id. */
typedef struct pm_env_facts {
	char dir[PATH_MAX];       /* POSTMORTEM_DIR, XDG_STATE_HOME, HOME ("" unset) */
	char state[PATH_MAX];
	char home[PATH_MAX];
	char app_id[256];         /* POSTMORTEM_APP_ID, POSTMORTEM_APP_VERSION */
	char app_version[128];
	char storm_keep[32];      /* POSTMORTEM_STORM_KEEP: storm control's numbers (docs/store.md) */
	bool postmortem_mapped;   /* libpostmortem or its preload library among its mappings */
} pm_env_facts;

/* --- kernel settings (sysctl.c) ---------------------------------------- */
typedef struct pm_core_settings {
	char pattern[PM_PATTERN_MAX + 1]; /* kernel.core_pattern, without the newline a read adds */
	char pipe_limit[32];      /* kernel.core_pipe_limit */
	char suid_dumpable[32];   /* fs.suid_dumpable */
} pm_core_settings;
/* Read the three; false with errno (and why) when one cannot be read. */
bool pmi_settings_read(pm_core_settings *s, char *why, size_t cap);
/* Write one /proc/sys file (name below /proc/sys/) exactly; false with errno. */
bool pmi_sysctl_write(const char *name, const char *value);
/* Read one /proc/sys file into out without its trailing newline; false with errno. */
bool pmi_sysctl_read(const char *name, char *out, size_t cap);

/* --- paths only root can change (root_path.c) ------------------------- */
enum { PMI_PATH_DIR = 1, PMI_PATH_FILE = 2, PMI_PATH_CREATE = 4, PMI_PATH_NAMES = 8 };
/* The absolute path opened through a walk from / that follows no link, each
 * component root's and not writable by group or others (a sticky directory
 * on the way may be); PMI_PATH_CREATE makes missing directories (0755);
 * PMI_PATH_NAMES names users and groups in why (the name service asked).
 * A directory's descriptor (O_RDONLY), a file's O_PATH one, or -1 with
 * errno (ENOENT: a component is missing; EPERM: one is not root's alone)
 * and why. */
int pmi_root_path_open(const char *path, int how, char *why, size_t cap);
/* dir/name written whole with what fill writes (dir opened as above, made
 * when missing, names in why): a temporary of that mode, made durable,
 * renamed over it. */
pm_err pmi_root_file_write(const char *dir, const char *name, mode_t mode, void (*fill)(FILE *f, const void *arg),
                           const void *arg, char *why, size_t cap);
/* Remove dir/name; PM_OK when it is not there. */
pm_err pmi_root_file_remove(const char *dir, const char *name, char *why, size_t cap);

/* --- the state enable keeps (state.c) ---------------------------------- */
/* The system reporter's directory: the state file, the spools. */
#define PM_SYSTEM_STATE "state"
/* A DSN the state keeps, with its NUL. */
enum { PM_SYSTEM_DSN_MAX = 512, PM_SYSTEM_ENVIRONMENT_MAX = 65 };
typedef struct pm_system_state {
	pm_core_settings before;  /* what enable replaced */
	char ours[PM_PATTERN_MAX + 1]; /* the pattern enable set */
	/* The identity that parses a core whose report is root's alone (the
	 * private spool): never root.  0 when the state names none. */
	uid_t analysis_uid;
	gid_t analysis_gid;
	/* Machine-wide delivery (`enable --dsn`): "" when none.  The DSN holds
	 * the project's key: the file is root's alone (0600). */
	char dsn[PM_SYSTEM_DSN_MAX];
	char environment[PM_SYSTEM_ENVIRONMENT_MAX]; /* "": the uploader's default */
	bool upload_private;      /* the private spool's reports are sent too */
} pm_system_state;
/* Read dir/state (root's, not writable by others, and every directory above
 * it root's: pmi_root_path_open).  PM_E_NOTFOUND when there is none. */
pm_err pmi_state_read(const char *dir, pm_system_state *st, char *why, size_t cap);
/* Write dir/state (0600, a temporary then rename), creating dir and the
 * directories above it that are missing (0755 root's). */
pm_err pmi_state_write(const char *dir, const pm_system_state *st, char *why, size_t cap);
pm_err pmi_state_remove(const char *dir, char *why, size_t cap);

/* --- the analysis identity (identity.c) -------------------------------- */
#define PM_ANALYSIS_USER "postmortem-core"
/* The system user and group PM_ANALYSIS_USER, made with useradd when
 * missing (*made); false (why says) when they cannot be, or are root's. */
bool pmi_analysis_identity(uid_t *uid, gid_t *gid, bool *made, char *why, size_t cap);

/* --- the next boot (boot.c) -------------------------------------------- */
#define PM_SYSCTL_DIR "/etc/sysctl.d"
#define PM_SYSCTL_DROPIN "99-zz-postmortem.conf"
/* The three settings in pm_core_settings' order: core_pattern, core_pipe_limit, suid_dumpable. */
enum { PM_BOOT_KEYS = 3 };
typedef struct pm_boot_settings {
	pm_core_settings next;    /* what the sysctl drop-ins set, applied in their order */
	bool set[PM_BOOT_KEYS];   /* false: no file sets it, the kernel's default stays */
	char from[PM_BOOT_KEYS][PATH_MAX]; /* the file whose value wins */
	pm_core_settings conf;    /* what /etc/sysctl.conf sets, which procps' `sysctl --system` */
	bool conf_set[PM_BOOT_KEYS]; /* (a boot without systemd) applies after every drop-in */
} pm_boot_settings;
/* What the next boot will apply, read as systemd-sysctl reads it. */
pm_err pmi_boot_read(pm_boot_settings *b, char *why, size_t cap);
/* Write PM_SYSCTL_DIR/PM_SYSCTL_DROPIN with s (0644, a temporary then rename). */
pm_err pmi_boot_write(const pm_core_settings *s, char *why, size_t cap);
/* Remove the drop-in when its kernel.core_pattern is ours (*removed);
 * *other: it holds another pattern, and is left. */
pm_err pmi_boot_remove(const char *ours, bool *removed, bool *other, char *why, size_t cap);

/* --- patterns (pattern.c) ---------------------------------------------- */
/* Our pattern for handler (and dir, NULL for the default); false when longer than the kernel takes. */
bool pmi_pattern_ours(const char *handler, const char *dir, char *out, size_t cap);
/* Whether pattern runs a postmortem core handler. */
bool pmi_pattern_is_ours(const char *pattern);
/* A pipe pattern's argv as the kernel builds it (split at spaces, then each
 * word expanded); a NULL-terminated malloc'd array of malloc'd strings, or NULL. */
char **pmi_pattern_argv(const char *pattern, const pm_crash_args *a, const char *exe_name, int pidfd);
/* A file pattern's path as the kernel builds it (core_uses_pid's ".PID"
 * added when the pattern has no %p); false when it does not fit. */
bool pmi_pattern_path(const char *pattern, const pm_crash_args *a, const char *exe_name, bool uses_pid, char *out,
                      size_t cap);
void pmi_argv_free(char **argv);

/* --- the handler's facts (args.c, proc_pin.c, proc_facts.c, ...) ------- */
/* Parse the handler's arguments (after the options): the specifiers' values;
 * %F may be missing or empty (pidfd -1). */
bool pmi_crash_args_parse(int argc, char **argv, pm_crash_args *a, char *why, size_t cap);
/* Open /proc/<pid> once and check that it is the crashed process: the
 * pidfd's process still alive once it is open, or (without one) a start
 * before the handler's own.  False (why says) when it is not, or gone. */
bool pmi_proc_pin(pm_proc *p, int pid, int pidfd, char *why, size_t cap);
/* The pinned process has not ended since (its pid is still its own). */
bool pmi_proc_held(const pm_proc *p);
/* A pidfd of the pinned process (the kernel's, duplicated, else one opened by
 * its number and kept only when the pinned process is still there); -1. */
int pmi_proc_pidfd(const pm_proc *p);
/* The handler is done with the process and has closed the core's pipe: once
 * grace_ms have passed, a process still in its dump is ended (SIGKILL through
 * its pidfd; its parent then sees SIGKILL).  True when it was. */
bool pmi_proc_dump_end(const pm_proc *p, int grace_ms);
void pmi_proc_unpin(pm_proc *p);
/* Read the facts through the pinned directory; false (why says) when they cannot be read. */
bool pmi_proc_facts_read(const pm_proc *p, pm_proc_facts *f, char *why, size_t cap);
/* Up to cap bytes of fd, to its end (EINTR retried); the count. */
size_t pmi_read_fd(int fd, char *buf, size_t cap);
/* Up to cap - 1 bytes of the file name below dir, NUL-terminated (no link
 * followed, no open that waits); the count, or -1. */
ssize_t pmi_read_below(int dir, const char *name, char *buf, size_t cap);

/* The snapshot: its environment and maps, the OS's files, and with_proc
 * (the process shares the handler's pid namespace) the rest of its /proc
 * the engine reads, its threads' and its parent's names included. */
void pmi_snapshot_take(pm_proc_snapshot *s, const pm_proc *p, const pm_proc_facts *f, bool with_proc);
/* The name (comm, which anyone may read) of another process: a signal's sender. */
void pmi_snapshot_keep_comm(pm_proc_snapshot *s, int pid);
/* The bytes held for path, NULL when none. */
const char *pmi_snapshot_bytes(const pm_proc_snapshot *s, const char *path, size_t *len);
void pmi_snapshot_free(pm_proc_snapshot *s);
/* Its environment and maps read (in a child: they are the process's words). */
void pmi_env_facts(const pm_proc_snapshot *s, int pid, pm_env_facts *out);
/* Its environment's value of name into out (in a child); false ("") when unset, empty or
 * longer than cap - 1. */
bool pmi_env_get(const pm_proc_snapshot *s, const char *name, char *out, size_t cap);

/* --- credentials and children (child.c) -------------------------------- */
typedef struct pm_creds {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	size_t ngroups;
} pm_creds;
/* Become exactly creds (groups, then gid, then uid), with no way back; false with errno. */
bool pmi_creds_drop(const pm_creds *c);
/* Run fn(arg, sock) in a child that first takes creds (NULL: stays root),
 * for at most timeout_ms; the child may send one descriptor through sock
 * (pmi_fd_send).  Its exit status (0-255), or -1 when it could not run, was
 * killed at the limit (*timed_out) or died of a signal.  *fd_out: the
 * descriptor it sent, or -1; *peak_kib (when not NULL): its peak resident
 * memory. */
int pmi_child_run(const pm_creds *creds, int (*fn)(void *arg, int sock), void *arg, int timeout_ms, int *fd_out,
                  bool *timed_out, long *peak_kib);
bool pmi_fd_send(int sock, int fd);
/* Until the process of pidfd ends or ms pass: whether it ended (it is not
 * reaped); without a pidfd (-1), true at once. */
bool pmi_ended_within(int pidfd, int64_t ms);
/* CLOCK_MONOTONIC in ms: the handler's and its children's deadlines. */
int64_t pmi_now_ms(void);

/* --- logging (log.c) ---------------------------------------------------- */
/* name as one line can hold it: every byte outside printable ASCII, and
 * the backslash, as \xNN (a name the process chose: comm, a path). */
void pmi_log_escape(const char *name, char *out, size_t cap);
/* Log to the kernel's log (/dev/kmsg) and, when it was open at start, stderr. */
void pmi_syslog_open(void);
void pmi_syslog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
