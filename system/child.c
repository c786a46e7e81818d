/*
 * child.c — a step of the handler in a child process: with the crashed
 * process's credentials where it touches what that user controls, and
 * always within a time limit (the kernel holds the crashed process, and
 * the next crash, until the handler is done).  A child may hand one open
 * descriptor back to the handler over a socket.
 *
 * Becoming the crashed process's user is for good: supplementary groups,
 * then the group, then the user (real, effective and saved ids alike), so
 * that no id of root's is left to go back to, and the capabilities go with
 * root's uid.  Checked after: a drop that did not take is a failure, never
 * a write as root.  NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool
pmi_creds_drop(const pm_creds *c)
{
	if (setgroups(c->ngroups, c->groups) != 0 || setresgid(c->gid, c->gid, c->gid) != 0 ||
	    setresuid(c->uid, c->uid, c->uid) != 0)
		return false;
	uid_t r, e, s;
	gid_t gr, ge, gs;
	if (getresuid(&r, &e, &s) != 0 || getresgid(&gr, &ge, &gs) != 0 || r != c->uid || e != c->uid ||
	    s != c->uid || gr != c->gid || ge != c->gid || gs != c->gid) {
		errno = EPERM;
		return false;
	}
	/* Once a user's, nothing this process runs may gain privileges (a set-user-ID file). */
	if (c->uid != 0 && (setuid(0) == 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)) {
		errno = EPERM;
		return false;
	}
	return true;
}

bool
pmi_fd_send(int sock, int fd)
{
	char byte = 0, ctl[CMSG_SPACE(sizeof fd)];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
	memset(ctl, 0, sizeof ctl);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fd);
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1;
}

/* The one descriptor the child sent; any more it sent are closed (a child may be an
 * exploited one: nothing it sends stays open unasked). */
static int
fd_receive(int sock)
{
	char byte, ctl[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
	if (recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	int fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof got, sizeof got);
			if (fd < 0 && n == 1)
				fd = got;
			else
				close(got);
		}
	}
	return fd;
}


int64_t
pmi_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

enum { REAP_MS = 5000 };

bool
pmi_ended_within(int pidfd, int64_t ms)
{
	int64_t deadline = pmi_now_ms() + ms;
	for (;;) {
		int64_t left = deadline - pmi_now_ms();
		struct pollfd p = { .fd = pidfd, .events = POLLIN };
		int r = left > 0 && pidfd >= 0 ? poll(&p, 1, (int)left) : pidfd < 0;
		if (r < 0 && errno == EINTR)
			continue;
		return r > 0;
	}
}

int
pmi_child_run(const pm_creds *creds, int (*fn)(void *arg, int sock), void *arg, int timeout_ms, int *fd_out,
              bool *timed_out, long *peak_kib)
{
	int sv[2];
	*fd_out = -1;
	*timed_out = false;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		if (creds && !pmi_creds_drop(creds))
			_exit(125);
		_exit(fn(arg, sv[1]) & 0xff);
	}
	close(sv[1]);
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0;
	if (!pmi_ended_within(pfd, timeout_ms)) {
		*timed_out = true;
		kill(pid, SIGKILL);
	}
	/* A SIGKILL ends a child at once, but one asleep in a file system that
	 * does not answer (a wait it cannot be killed out of) ends when that
	 * answers: it is left to end on its own, and to init to reap. */
	struct rusage ru = { 0 };
	bool gone = !*timed_out || pmi_ended_within(pfd, REAP_MS);
	if (gone)
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
	if (peak_kib)
		*peak_kib = ru.ru_maxrss;
	if (pfd >= 0)
		close(pfd);
	*fd_out = fd_receive(sv[0]);
	close(sv[0]);
	return !*timed_out && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
