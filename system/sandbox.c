/*
 * sandbox.c — the cell the report's analysis runs in (see sandbox.h), put
 * in place by root's child in order: only the descriptors it needs (the
 * core's pipe, the kernel's log and the state directory are not among
 * them), an empty root, the identity (never root, no capability, no way
 * back), then the seal: no new privileges, not dumpable, Landlock, and a
 * seccomp filter (libseccomp) allowing what the engine was seen to call
 * (tests/system/test_core_sandbox.py runs it; a call the filter does not
 * allow fails with EPERM, which the engine takes as a file or fact it
 * cannot have).  NOT AS-safe.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

bool
pmi_sandbox_fds(const int *keep, size_t n)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return false;
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(null, fd) != fd)
			return false;
	int *sorted = malloc((n + 1) * sizeof *sorted);
	if (!sorted)
		return false;
	memcpy(sorted, keep, n * sizeof *keep);
	sorted[n] = 2;
	qsort(sorted, n + 1, sizeof *sorted, by_value);
	/* Close the gaps between the kept descriptors, and everything above the last. */
	for (size_t i = 0; i <= n; i++) {
		unsigned lo = (unsigned)sorted[i] + 1, hi = i < n ? (unsigned)sorted[i + 1] - 1 : ~0u;
		if (sorted[i] >= 2 && lo <= hi)
			close_range(lo, hi, 0);
	}
	free(sorted);
	close(null);
	return true;
}

bool
pmi_sandbox_chroot(int root_dir)
{
	return fchdir(root_dir) == 0 && chroot(".") == 0 && chdir("/") == 0;
}

bool
pmi_sandbox_become(const pm_sandbox_ids *ids)
{
	/* Never root; a user's own group may be 0 (the process had it), the identity's never. */
	if (ids->ruid == 0 || ids->euid == 0 || ids->rgid == 0) {
		errno = EPERM;
		return false;
	}
	/* While still root: nothing it could ever run gets a capability back. */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
			return false;
	if (setgroups(ids->ngroups, ids->groups) != 0 || setresgid(ids->rgid, ids->egid, ids->rgid) != 0 ||
	    setresuid(ids->ruid, ids->euid, ids->ruid) != 0)
		return false;
	uid_t r, e, s;
	gid_t gr, ge, gs;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct caps[2];
	if (getresuid(&r, &e, &s) != 0 || getresgid(&gr, &ge, &gs) != 0 || r != ids->ruid || e != ids->euid ||
	    s != ids->ruid || gr != ids->rgid || ge != ids->egid || gs != ids->rgid ||
	    syscall(SYS_capget, &h, caps) != 0 || caps[0].permitted || caps[1].permitted || caps[0].effective ||
	    caps[1].effective || setuid(0) == 0) {
		errno = EPERM;
		return false;
	}
	return true;
}

/* Landlock's rights, from its ABI (linux/landlock.h of Debian 12 stops at 2). */
enum {
	LL_FS_ABI1 = (1 << 13) - 1,      /* EXECUTE .. MAKE_SYM */
	LL_REFER = 1 << 13,              /* ABI 2 */
	LL_TRUNCATE = 1 << 14,           /* ABI 3 */
	LL_IOCTL_DEV = 1 << 15,          /* ABI 5 */
	LL_NET_TCP = 3,                  /* ABI 4: bind, connect */
	LL_SCOPE_ALL = 3,                /* ABI 6: abstract UNIX sockets, signals */
	LL_READ = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
	/* Its files made and removed, and its directory listed (storm control finds a crash group's
	 * reports there); no directory made, no link. */
	LL_WRITE = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_WRITE_FILE |
	           LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE,
};

struct ll_ruleset {
	uint64_t fs, net, scoped;
};
struct ll_beneath {
	uint64_t allowed;
	int32_t parent_fd;
} __attribute__((packed));

static bool
ll_allow(int rules, int dir, uint64_t access, uint64_t handled)
{
	struct ll_beneath b = { access & handled, dir };
	return dir < 0 || syscall(SYS_landlock_add_rule, rules, LANDLOCK_RULE_PATH_BENEATH, &b, 0) == 0;
}

/* Landlock's ABI, or 0 where the kernel has none (then the chroot and the filter are the walls). */
static int
landlock(int out_fd, int read_fd)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return 0;
	struct ll_ruleset attr = {
		.fs = LL_FS_ABI1 | (abi >= 2 ? LL_REFER : 0) | (abi >= 3 ? LL_TRUNCATE : 0) |
		      (abi >= 5 ? LL_IOCTL_DEV : 0),
		.net = abi >= 4 ? LL_NET_TCP : 0,
		.scoped = abi >= 6 ? LL_SCOPE_ALL : 0,
	};
	size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	int rules = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rules < 0)
		return 0;
	bool ok = ll_allow(rules, out_fd, LL_WRITE | LL_TRUNCATE, attr.fs) && ll_allow(rules, read_fd, LL_READ, attr.fs) &&
	          syscall(SYS_landlock_restrict_self, rules, 0) == 0;
	close(rules);
	return ok ? (int)abi : 0;
}

/* The calls the analysis makes with no argument to check. */
static const int plain[] = {
	SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(write), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(fstatfs), SCMP_SYS(lseek), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk),
	SCMP_SYS(fsync), SCMP_SYS(fdatasync), SCMP_SYS(sync_file_range), SCMP_SYS(clock_gettime),
	SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getrandom),
	SCMP_SYS(uname), SCMP_SYS(futex), SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask), SCMP_SYS(exit),
	SCMP_SYS(exit_group), SCMP_SYS(getdents64),
};

/* Files made, renamed and removed below dir alone (a rename never leaves it), none opened elsewhere. */
static int
files_below(scmp_filter_ctx f, int dir)
{
	int r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)dir));
	const int in_out[] = { SCMP_SYS(renameat), SCMP_SYS(renameat2) };
	for (size_t i = 0; i < 2 && r == 0; i++)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, in_out[i], 2, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)dir),
		                     SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)dir));
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(unlinkat), 2, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)dir),
		                     SCMP_A2(SCMP_CMP_EQ, 0));
	return r;
}

bool
pmi_sandbox_filter(int out_fd, int groups_fd, int read_fd)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!f)
		return false;
	int r = 0;
	for (size_t i = 0; i < sizeof plain / sizeof *plain && r == 0; i++)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0);
	/* Memory, never executable: the engine runs no code it reads. */
	const int mem[] = { SCMP_SYS(mmap), SCMP_SYS(mprotect) };
	for (size_t i = 0; i < 2 && r == 0; i++)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, mem[i], 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* Descriptors: their flags, and duplicates (a mapped file handed to a reader). */
	const int fcntls[] = { F_GETFD, F_SETFD, F_GETFL, F_DUPFD_CLOEXEC };
	for (size_t i = 0; i < sizeof fcntls / sizeof *fcntls && r == 0; i++)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)fcntls[i]));
	/* Files: the report's below out_fd (created exclusive, renamed, removed there alone),
	 * storm control's records below groups_fd (their lock too), and reads below read_fd;
	 * Landlock holds the opens beneath them too. */
	if (r == 0)
		r = files_below(f, out_fd);
	if (r == 0 && groups_fd >= 0)
		r = files_below(f, groups_fd);
	if (r == 0 && groups_fd >= 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(flock), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)groups_fd));
	if (r == 0 && read_fd >= 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(openat), 2, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)read_fd),
		                     SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT, O_RDONLY));
	if (r == 0 && read_fd >= 0)
		r = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(openat2), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)read_fd));
	if (r == 0)
		r = seccomp_load(f);
	seccomp_release(f);
	return r == 0;
}

bool
pmi_sandbox_no_reach(void)
{
	/* Everything else a process may do: what it may not is reach another process or become another. */
	static const int denied[] = {
		SCMP_SYS(kill), SCMP_SYS(tkill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo),
		SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_send_signal), SCMP_SYS(pidfd_getfd), SCMP_SYS(ptrace),
		SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(execve), SCMP_SYS(execveat),
		SCMP_SYS(setuid), SCMP_SYS(setreuid), SCMP_SYS(setresuid), SCMP_SYS(setfsuid), SCMP_SYS(setgid),
		SCMP_SYS(setregid), SCMP_SYS(setresgid), SCMP_SYS(setfsgid), SCMP_SYS(setgroups),
	};
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	int r = f ? 0 : -1;
	for (size_t i = 0; i < sizeof denied / sizeof *denied && r == 0; i++)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
	if (r == 0)
		r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? seccomp_load(f) : -1;
	if (f)
		seccomp_release(f);
	return r == 0;
}

bool
pmi_sandbox_seal(int out_fd, int groups_fd, int read_fd, pm_sandbox_seal *got, char *why, size_t cap)
{
	*got = (pm_sandbox_seal){ 0 };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		snprintf(why, cap, "cannot set no_new_privs: %s", strerror(errno));
		return false;
	}
	got->landlock_abi = landlock(out_fd, read_fd);
	got->landlock = got->landlock_abi > 0;
	if (!pmi_sandbox_filter(out_fd, groups_fd, read_fd)) {
		snprintf(why, cap, "cannot install the seccomp filter");
		return false;
	}
	return true;
}
