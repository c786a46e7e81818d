/*
 * chain.c — the previous kernel.core_pattern, served as the kernel would
 * have served it (docs/system-reporter.md, "The previous handler").
 *
 * A pipe (systemd-coredump, apport, anything): its program runs as the
 * kernel would run it (root, no environment, working directory /, its
 * words expanded; %F the pinned process's pidfd), in a process group of
 * its own, and gets every byte of the core on its standard input; the
 * handler waits for it, as the kernel waits for its own handler, and
 * holds the crashed process meanwhile (the core's pipe stays open: it may
 * read /proc/<pid>), until its deadline, when its process group is killed.
 * One that stops reading for PM_CHAIN_STALL_MS is given no more.
 *
 * A file (`core`, `core.%p`, /var/crash/%e.%p): written where the kernel
 * would have written it, as it would have: as the process's filesystem
 * user, from its working directory (reached through the pinned /proc
 * directory, never by the pid's number), any file there first unlinked, then
 * created O_EXCL | O_NOFOLLOW, 0600 under its umask, owned by it, a single
 * link; not at all when RLIMIT_CORE is under a page, and no more than
 * RLIMIT_CORE bytes; sparse, as the kernel writes it (a block of zeros is
 * a hole).  A set-user-ID process's core (dumpable 2) only to an
 * absolute path, as root, nothing replaced; and nothing at all for one
 * when fs.suid_dumpable was 0, since the kernel would not have dumped it.
 * NOT AS-safe.
 */
#include "chain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PM_CHAIN_STALL_MS = 30000, PM_CHAIN_OPEN_MS = 10000, PM_CHAIN_REAP_MS = 5000, MIN_CORE = 4096 };

static void
start_pipe(pm_chain *c, const char *pattern, const pm_crash_args *a, const pm_proc *pin, const char *exe_name)
{
	int pidfd = pmi_proc_pidfd(pin);
	char **argv = pmi_pattern_argv(pattern, a, exe_name, pidfd);
	int p[2];
	if (!argv || pipe2(p, O_CLOEXEC) != 0) {
		snprintf(c->what, sizeof c->what, "previous handler %.200s: cannot start it: %s", pattern,
		         argv ? strerror(errno) : "its pattern does not expand");
		pmi_argv_free(argv);
		if (pidfd >= 0)
			close(pidfd);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char *envp[] = { NULL };
		/* A group of its own: what it starts is killed with it at its deadline. */
		if (dup2(p[0], 0) < 0 || chdir("/") != 0 || setpgid(0, 0) != 0)
			_exit(127);
		if (pidfd >= 0)
			fcntl(pidfd, F_SETFD, 0); /* %F names it */
		signal(SIGPIPE, SIG_DFL);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[0]);
	if (pidfd >= 0)
		close(pidfd);
	pmi_argv_free(argv);
	if (pid < 0) {
		close(p[1]);
		snprintf(c->what, sizeof c->what, "previous handler %.200s: cannot start it: %s", pattern, strerror(errno));
		return;
	}
	setpgid(pid, pid); /* as the child does: whichever comes first */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	c->pipe_pid = pid;
	c->pipe_fd = p[1];
}

typedef struct file_job {
	const char *path;
	int proc_dir;             /* the pinned /proc/<pid> */
	bool as_root;             /* dumpable 2: an absolute path from /, nothing unlinked */
	mode_t umask;
} file_job;

/* In a child, as the user the kernel would have written the core as. */
static int
open_core_file(void *arg, int sock)
{
	const file_job *j = arg;
	int cwd = j->as_root ? -1 : openat(j->proc_dir, "cwd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool in = j->as_root ? chdir("/") == 0 : cwd >= 0 && fchdir(cwd) == 0;
	if (cwd >= 0)
		close(cwd);
	if (!in)
		return 2;
	if (!j->as_root)
		unlink(j->path);
	umask(j->umask);
	int fd = open(j->path, O_CREAT | O_WRONLY | O_NOFOLLOW | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
	struct stat st;
	if (fd < 0)
		return 3;
	if (fstat(fd, &st) != 0 || st.st_nlink != 1 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0677) != 0600)
		return 4;
	return pmi_fd_send(sock, fd) ? 0 : 5;
}

static void
start_file(pm_chain *c, const char *pattern, const pm_crash_args *a, const pm_proc *pin, const pm_proc_facts *f,
           int dumpable, const char *exe_name)
{
	char path[PATH_MAX], uses[8] = "0";
	pmi_sysctl_read("kernel/core_uses_pid", uses, sizeof uses);
	if (!pmi_pattern_path(pattern, a, exe_name, uses[0] == '1', path, sizeof path)) {
		snprintf(c->what, sizeof c->what, "previous pattern %.200s: no core file (it does not expand)", pattern);
		return;
	}
	if (a->core_limit < MIN_CORE) {
		snprintf(c->what, sizeof c->what, "no core file %.200s: RLIMIT_CORE is %llu", path,
		         (unsigned long long)a->core_limit);
		return;
	}
	if (dumpable == 2 && path[0] != '/') {
		snprintf(c->what, sizeof c->what,
		         "no core file %.200s: a relative pattern with fs.suid_dumpable=2 (the kernel refuses it too)", path);
		return;
	}
	if (dumpable != 2 && !f->same_mount_ns) {
		snprintf(c->what, sizeof c->what, "no core file %.200s: the process runs in another mount namespace", path);
		return;
	}
	file_job j = { path, pin->dir, dumpable == 2, f->umask };
	pm_creds fs = { f->uid[3], f->gid[3], f->groups, f->ngroups };
	bool timed_out;
	int fd, rc = pmi_child_run(dumpable == 2 ? NULL : &fs, open_core_file, &j, PM_CHAIN_OPEN_MS, &fd, &timed_out,
	                           NULL);
	if (rc != 0 || fd < 0) {
		snprintf(c->what, sizeof c->what, "no core file %.200s: %s", path,
		         timed_out ? "opening it took too long"
		         : rc == 3 ? "it cannot be created there (exists, a link, or no permission)"
		                   : "it is not a new regular file of the process's user");
		if (fd >= 0)
			close(fd);
		return;
	}
	c->file_fd = fd;
	c->file_limit = a->core_limit;
	snprintf(c->what, sizeof c->what, "core file %.200s", path);
}

void
pmi_chain_start(pm_chain *c, const pm_system_state *st, const pm_crash_args *a, const pm_proc *pin,
                const pm_proc_facts *f)
{
	memset(c, 0, sizeof *c);
	c->pipe_pid = -1;
	c->pipe_fd = c->file_fd = -1;
	const char *pattern = st ? st->before.pattern : "";
	if (!pattern[0] || pmi_pattern_is_ours(pattern)) {
		snprintf(c->what, sizeof c->what, "no previous handler");
		return;
	}
	/* The dumpable flag the process would have had under the previous fs.suid_dumpable. */
	int dumpable = a->dumpable;
	if (dumpable == 2 && st->before.suid_dumpable[0] != '2') {
		if (st->before.suid_dumpable[0] == '0') {
			snprintf(c->what, sizeof c->what, "previous pattern not served: fs.suid_dumpable was 0");
			return;
		}
		dumpable = 1;
	}
	const char *slash = strrchr(f->exe, '/');
	const char *exe_name = slash ? slash + 1 : a->comm;
	if (pattern[0] == '|')
		start_pipe(c, pattern, a, pin, exe_name);
	else
		start_file(c, pattern, a, pin, f, dumpable, exe_name);
}


/* All n bytes into the pipe handler, unless it stops reading for too long. */
static void
feed_pipe(pm_chain *c, const unsigned char *p, size_t n)
{
	int64_t last = pmi_now_ms();
	while (n && c->pipe_fd >= 0) {
		ssize_t k = write(c->pipe_fd, p, n);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			last = pmi_now_ms();
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		struct pollfd pf = { .fd = c->pipe_fd, .events = POLLOUT };
		int64_t left = last + PM_CHAIN_STALL_MS - pmi_now_ms();
		if (k < 0 && errno == EAGAIN && left > 0 && poll(&pf, 1, (int)left) >= 0)
			continue;
		c->pipe_stalled = true; /* it exited, or stopped reading */
		close(c->pipe_fd);
		c->pipe_fd = -1;
	}
}

/* A core file is written sparse, as the kernel writes its own: a whole
 * block of zeros is left a hole (a process's untouched memory is most of
 * its core: 8 GiB of zeros would take 8 GiB of the user's disk). */
enum { BLOCK = sizeof ((pm_chain *)0)->block };
static const unsigned char zero_block[BLOCK];

/* n bytes (whole blocks, or the last short one) at the core file's offset off. */
static void
put(pm_chain *c, const unsigned char *p, size_t n, uint64_t off)
{
	while (n && !c->file_failed) {
		ssize_t w = pwrite(c->file_fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			c->file_failed = true;
		else {
			p += w;
			n -= (size_t)w;
			off += (uint64_t)w;
		}
	}
}

/* Whole blocks at the core file's offset off: each run of blocks with data in one write, zeros skipped. */
static void
put_blocks(pm_chain *c, const unsigned char *p, size_t n, uint64_t off)
{
	size_t run = 0; /* blocks with data, not yet written, before p + at */
	for (size_t at = 0; at < n; at += BLOCK) {
		if (memcmp(p + at, zero_block, BLOCK) != 0) {
			run += BLOCK;
			continue;
		}
		put(c, p + at - run, run, off + at - run);
		run = 0;
	}
	put(c, p + n - run, run, off + n - run);
}

static void
file_tee(pm_chain *c, const unsigned char *p, size_t n)
{
	uint64_t room = c->file_limit - c->file_written;
	size_t k = n < room ? n : (size_t)room;
	while (k && !c->file_failed) {
		uint64_t off = c->file_written - c->block_len;
		if (c->block_len == 0 && k >= BLOCK) {
			size_t whole = k - k % BLOCK;
			put_blocks(c, p, whole, off);
			p += whole;
			k -= whole;
			c->file_written += whole;
			continue;
		}
		size_t m = BLOCK - c->block_len < k ? BLOCK - c->block_len : k;
		memcpy(c->block + c->block_len, p, m);
		c->block_len += m;
		c->file_written += m;
		p += m;
		k -= m;
		if (c->block_len == BLOCK) {
			put_blocks(c, c->block, BLOCK, off);
			c->block_len = 0;
		}
	}
}

bool
pmi_chain_tee(void *ctx, const void *buf, size_t n)
{
	pm_chain *c = ctx;
	if (c->pipe_fd >= 0)
		feed_pipe(c, buf, n);
	if (c->file_fd >= 0 && !c->file_failed)
		file_tee(c, buf, n);
	return c->pipe_fd >= 0 || (c->file_fd >= 0 && !c->file_failed && c->file_written < c->file_limit);
}

void
pmi_chain_close(pm_chain *c)
{
	size_t at = strlen(c->what);
	if (c->pipe_fd >= 0)
		close(c->pipe_fd);
	c->pipe_fd = -1;
	if (c->file_fd >= 0) {
		/* The short last block, then the length: a core that ends in a hole ends where it should. */
		put(c, c->block, c->block_len, c->file_written - c->block_len);
		bool ok = !c->file_failed && ftruncate(c->file_fd, (off_t)c->file_written) == 0 && fsync(c->file_fd) == 0;
		ok = close(c->file_fd) == 0 && ok;
		snprintf(c->what + at, sizeof c->what - at, ": %llu bytes%s", (unsigned long long)c->file_written,
		         ok ? "" : " (a write failed)");
		c->file_fd = -1;
	}
}

/* Whether a process of group pgid is alive (a zombie is not: it waits to
 * be reaped).  Each /proc/<pid>/stat read after its name's last ')', the
 * kernel's fields alone. */
static bool
group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool alive = false;
	while (d && !alive && (e = readdir(d))) {
		char name[300], buf[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(name, sizeof name, "/proc/%s/stat", e->d_name);
		const char *end = pmi_read_below(AT_FDCWD, name, buf, sizeof buf) > 0 ? strrchr(buf, ')') : NULL;
		char state;
		int ppid, pgrp;
		alive = end && sscanf(end + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z' &&
		        state != 'X';
	}
	if (d)
		closedir(d);
	return alive;
}

/* Until no process of group pgid is alive or ms pass; whether none is. */
static bool
group_gone_within(pid_t pgid, int64_t ms)
{
	int64_t deadline = pmi_now_ms() + ms;
	while (group_alive(pgid)) {
		if (pmi_now_ms() >= deadline)
			return false;
		nanosleep(&(struct timespec){ 0, 50 * 1000000 }, NULL);
	}
	return true;
}

void
pmi_chain_wait(pm_chain *c, int deadline_ms)
{
	size_t at = strlen(c->what);
	if (c->pipe_pid < 0)
		return;
	int64_t deadline = pmi_now_ms() + deadline_ms;
	int pfd = (int)syscall(SYS_pidfd_open, c->pipe_pid, 0), status = 0;
	/* It is reaped last: until then its pid, its group's id, is nobody
	 * else's, and what is killed by that id is its group alone. */
	bool ended = pmi_ended_within(pfd, deadline_ms);
	/* What it started in its group may read /proc/<pid> too: bounded alike. */
	bool killed = !ended || !group_gone_within(c->pipe_pid, deadline - pmi_now_ms());
	if (killed) {
		kill(-c->pipe_pid, SIGKILL);
		ended = ended || pmi_ended_within(pfd, PM_CHAIN_REAP_MS);
	}
	bool reaped = false;
	while (ended && !(reaped = waitpid(c->pipe_pid, &status, 0) == c->pipe_pid) && errno == EINTR)
		;
	if (pfd >= 0)
		close(pfd);
	const char *stalled = c->pipe_stalled ? ", after it stopped reading the core" : "";
	if (killed)
		snprintf(c->what + at, sizeof c->what - at, "previous handler killed at its deadline (%.1f s), with its "
		         "process group%s%s", deadline_ms / 1000.0, reaped ? "" : ", and not gone yet", stalled);
	else
		snprintf(c->what + at, sizeof c->what - at, "previous handler %s %d%s",
		         WIFEXITED(status) ? "exited" : "killed by signal",
		         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), stalled);
}
