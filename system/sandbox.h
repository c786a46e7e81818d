/*
 * sandbox.h — the cell the report's analysis runs in (sandbox.c): what
 * parses a user's bytes (the core, the files it maps, /proc's text) holds
 * no privilege, no path and no descriptor but its own.  NOT AS-safe.
 */
#ifndef PM_SYSTEM_SANDBOX_H
#define PM_SYSTEM_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Who the analysis is.  The real and saved ids are the dedicated
 * identity's, the effective (and file system) ids whoever its files
 * belong to: the crashing user's for a report that user gets (no signal
 * or ptrace of that user's reaches a process whose real and saved ids are
 * another's), the identity's own for a report root keeps.  Never root. */
typedef struct pm_sandbox_ids {
	uid_t ruid, euid;
	gid_t rgid, egid;
	const gid_t *groups;      /* supplementary groups (the user's, for a user's report), or none */
	size_t ngroups;
} pm_sandbox_ids;

/* Keep only the descriptors in keep[0, n) open (and 0, 1, 2, which become
 * /dev/null's); false when /dev/null cannot be opened. */
bool pmi_sandbox_fds(const int *keep, size_t n);
/* chroot into the directory root_dir (root's, empty) and chdir("/"). */
bool pmi_sandbox_chroot(int root_dir);
/* Become ids for good: the bounding set emptied, groups, then the gids,
 * then the uids, checked (no uid 0, nor the identity's gid 0; no capability). */
bool pmi_sandbox_become(const pm_sandbox_ids *ids);
/* What pmi_sandbox_seal could put in place. */
typedef struct pm_sandbox_seal {
	bool landlock;            /* the kernel has Landlock (its ABI, else 0) */
	int landlock_abi;
} pm_sandbox_seal;
/* Seal this process: no new privileges, not dumpable (not ptraceable, its
 * /proc root's), Landlock (where the kernel has it) allowing writes (and
 * listings) beneath out_fd alone and reads beneath read_fd (-1: none),
 * and the seccomp filter of the analysis (pmi_sandbox_filter).  groups_fd
 * (-1: none) is out_fd's .groups, storm control's records, which lie
 * beneath it.  False (why says) when the filter cannot be installed:
 * nothing may run unfiltered. */
bool pmi_sandbox_seal(int out_fd, int groups_fd, int read_fd, pm_sandbox_seal *got, char *why, size_t cap);
/* For a child that works as the user but is not sealed (it walks the
 * user's paths): no new privileges, not dumpable, and a seccomp filter
 * that lets it signal, trace, exec and change ids never. */
bool pmi_sandbox_no_reach(void);
/* The seccomp filter alone: the system calls the analysis makes, openat
 * and openat2 relative to out_fd, groups_fd or read_fd only (creating
 * only below out_fd and groups_fd), renames and unlinks within out_fd and
 * within groups_fd, flock of groups_fd, no executable memory, no exec,
 * fork, socket, signal, ptrace or process_vm_*; any other call fails with
 * EPERM.  groups_fd and read_fd may be -1.  The fuzz target of a whole
 * report runs under it too. */
bool pmi_sandbox_filter(int out_fd, int groups_fd, int read_fd);

#endif
