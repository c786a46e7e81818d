/*
 * proc_pin.c — the crashed process pinned before anything of it is read.
 *
 * The kernel names the process by its pid, and a pid is used again once
 * its process is gone.  The kernel holds a dumping process while its pipe
 * handler keeps the core's pipe open (kernel.core_pipe_limit > 0:
 * do_coredump waits for the handler's end of the pipe to close) — unless
 * the process is killed during its dump: SIGKILL ends that wait, and its
 * user can then have the pid taken by another process, a set-user-ID one
 * included.  So /proc/<pid> is opened once, as a directory: every file of
 * it is read through that descriptor, which refers to the process it was
 * opened for (a process using the pid again has another struct pid, and
 * nothing of it is reached through this one; the reads of one that ended
 * fail).  What is left is to know that the directory opened was the
 * crashed process's and not already a successor's:
 *
 *  - with the kernel's pidfd (%F, Linux 6.16): the pidfd's process is
 *    still there after the directory was opened (pidfd_send_signal 0), so
 *    the pid was its own all along;
 *  - without: it started (stat's field 22, read after the last ')': the
 *    name before it is the process's) no later than this handler, which
 *    the kernel started during the crashed process's dump, before any
 *    successor could exist.  Clock ticks are 10 ms: a successor would need
 *    the old one killed, reaped and the whole pid space walked through
 *    within the tick the handler started in.
 *
 * pmi_proc_held says again, after the reads, that the process has not
 * ended since (what was read is then whole).
 *
 * The kernel counts a crash against kernel.core_pipe_limit from the start
 * of its dump to the dump's end, and a dump can go on long after the
 * handler has closed the core's pipe: the kernel walks every page of the
 * process's mappings and writes nothing over a hole until a page follows
 * it (1 TiB mapped, one page touched: minutes).  pmi_proc_dump_end ends
 * such a dump, through the pidfd of the pinned process, so that no user's
 * crashes hold the kernel's places after their handlers are done.
 * NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

size_t
pmi_read_fd(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	return n;
}

ssize_t
pmi_read_below(int dir, const char *name, char *buf, size_t cap)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	size_t n = pmi_read_fd(fd, buf, cap - 1);
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* Field 22 of a stat read below dir ("stat"), counted after the last ')'; 0 when unreadable. */
static uint64_t
start_ticks(int dir)
{
	char buf[4096];
	if (pmi_read_below(dir, "stat", buf, sizeof buf) <= 0)
		return 0;
	const char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	unsigned long long ticks = 0;
	return p && sscanf(p + 1, "%llu", &ticks) == 1 ? ticks : 0;
}

/* The kernel's pidfd of pid at fd: its fdinfo says "Pid:\t<pid>", or -1
 * once that process is gone (then it says the pid is not its own). */
static bool
pidfd_of(int fd, int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	if (pmi_read_below(AT_FDCWD, path, buf, sizeof buf) <= 0)
		return false;
	const char *p = strstr(buf, "\nPid:");
	long of = p ? strtol(p + 5, NULL, 10) : 0;
	return p && (of == pid || of == -1);
}

static bool
alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

bool
pmi_proc_pin(pm_proc *p, int pid, int pidfd, char *why, size_t cap)
{
	char path[64];
	*p = (pm_proc){ .pid = pid, .dir = -1, .pidfd = pidfd >= 0 && pidfd_of(pidfd, pid) ? pidfd : -1 };
	snprintf(path, sizeof path, "/proc/%d", pid);
	p->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dir < 0) {
		snprintf(why, cap, "cannot open /proc/%d: %s", pid, strerror(errno));
		return false;
	}
	p->start_ticks = start_ticks(p->dir);
	bool same;
	if (p->pidfd >= 0)
		same = alive(p->pidfd);
	else {
		int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		uint64_t ours = self >= 0 ? start_ticks(self) : 0;
		if (self >= 0)
			close(self);
		same = p->start_ticks && ours && p->start_ticks <= ours;
	}
	if (!same) {
		snprintf(why, cap, "the process ended before it could be read (pid %d is %s)", pid,
		         p->pidfd >= 0 ? "gone, by its pidfd" : "another process's now, by its start");
		pmi_proc_unpin(p);
		return false;
	}
	return true;
}

bool
pmi_proc_held(const pm_proc *p)
{
	if (p->dir < 0)
		return false;
	if (p->pidfd >= 0)
		return alive(p->pidfd);
	/* Its stat through the pinned directory fails once it is gone. */
	return start_ticks(p->dir) == p->start_ticks;
}

void
pmi_proc_unpin(pm_proc *p)
{
	if (p->dir >= 0)
		close(p->dir);
	p->dir = -1;
}

int
pmi_proc_pidfd(const pm_proc *p)
{
	if (p->pidfd >= 0)
		return fcntl(p->pidfd, F_DUPFD_CLOEXEC, 3);
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (fd >= 0 && !pmi_proc_held(p)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Its status, read through the pinned directory, says it is in its dump. */
static bool
dumping(const pm_proc *p)
{
	char buf[4096];
	return pmi_read_below(p->dir, "status", buf, sizeof buf) > 0 && strstr(buf, "\nCoreDumping:\t1\n");
}

bool
pmi_proc_dump_end(const pm_proc *p, int grace_ms)
{
	int fd = p->dir >= 0 ? pmi_proc_pidfd(p) : -1;
	if (fd < 0)
		return false;
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	int r;
	while ((r = poll(&pf, 1, grace_ms)) < 0 && errno == EINTR)
		;
	/* Still there, and still in its dump: nothing reads it any more. */
	bool end = r == 0 && dumping(p) && syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == 0;
	close(fd);
	return end;
}
