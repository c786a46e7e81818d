/*
 * as_upload_now.c — AS-SAFE: the uploader started from the crash handler
 * (as_upload_now.h; what it does: delivery/uploader/).
 *
 * A clone that shares our memory (CLONE_VM), not a fork: a fork copies the
 * page tables of the whole process, which grows with its memory and is
 * paid by the dying process.  Nor do we wait for the child to exec
 * (CLONE_VFORK): on a busy machine the child may wait milliseconds for a
 * processor, and we with it (measured: docs/benchmarks.md).  So the child
 * runs beside us until our end, then execs, on a stack of its own that install
 * mapped, with every signal blocked (a handler of ours running in it would
 * write into our memory), reading only what install prepared and nothing
 * writes any more.  Its failed calls write errno, which it shares with the
 * crashing thread (the same thread pointer): it puts errno back before it
 * gives up, and as_on_fatal puts the thread's back before the handler
 * returns.  Our end (the fatal signal kills our threads) does not end it:
 * it is a process of its own, and keeps the memory it reads until its
 * execve.  (Linux before 5.16 killed every process sharing the memory of
 * one that dumps core: there, with core dumps on, the start may be lost.)
 *
 * It waits for our end (our pidfd, at most ENDED_WAIT_MS) before its
 * execve: an exec and a program's loading beside the dying process's
 * teardown (every thread's) made a 17-thread process's death 6 ms (+70 %)
 * slower; after it, nothing (docs/benchmarks.md).  The uploader waits for
 * our end anyway, for the run's session.  Not where we wait for it (the
 * end of a container's init, below).
 *
 * What the dying process's parent sees does not change: the uploader is
 * our child, not its, and once we are gone it belongs to the nearest
 * subreaper or init, which reaps it; our exit status is the signal's, as
 * before.  A session of its own keeps the terminal's signals (^C, a hangup)
 * away from it, and its standard streams on /dev/null keep it from holding
 * a pipe the parent reads to its end (a shell's $(...), a test harness).
 */
#include "as_upload_now.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "as_memory.h"

/* In .data beside what install writes first (start_data.h). */
PM_START_DATA as_upload_now_state as_upload_now;

/* How long the child waits for our end before its execve: a process that
 * goes on past its handler (another handler of the signal's that takes its
 * time) gets its uploader then. */
enum { ENDED_WAIT_MS = 1000 };

/* Where close_range is missing (Linux before 5.9): the descriptors closed one by one, up to this. */
enum { CLOSE_ONE_BY_ONE_MAX = 1024 };

/* Standard streams on /dev/null (closed where it cannot be opened). */
static void
quiet_streams(void)
{
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd <= 2; fd++)
		if (fd != null && (null < 0 || dup2(null, fd) < 0))
			close(fd);
	if (null > 2)
		close(null);
}

static void
close_the_rest(void)
{
	if (syscall(SYS_close_range, AS_UPLOAD_LOCK_FD + 1, ~0u, 0) == 0)
		return;
	for (int fd = AS_UPLOAD_LOCK_FD + 1; fd < CLOSE_ONE_BY_ONE_MAX; fd++)
		close(fd);
}

/* In the child, on our memory: never returns. */
static int
child(void *arg)
{
	const as_upload_now_state *u = arg;
	int saved = errno;
	sigset_t all;
	memset(&all, 0xff, sizeof all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	setsid();
	if (u->ended_fd >= 0) {
		struct pollfd ended = { .fd = u->ended_fd, .events = POLLIN };
		poll(&ended, 1, ENDED_WAIT_MS);
		close(u->ended_fd);
	}
	/* The lock to its place first: it may sit on a standard stream's number
	 * (an app that closed its stdin).  dup2 clears close-on-exec; onto
	 * itself it does nothing, so that case clears the flag by hand. */
	int ok = 0;
	if (u->lock_fd < 0)
		close(AS_UPLOAD_LOCK_FD); /* no lock to hand over: that number is the app's */
	else if (u->lock_fd == AS_UPLOAD_LOCK_FD)
		ok = fcntl(AS_UPLOAD_LOCK_FD, F_SETFD, 0);
	else
		ok = dup2(u->lock_fd, AS_UPLOAD_LOCK_FD);
	if (ok >= 0) {
		quiet_streams();
		close_the_rest();
		execve(u->argv[0], u->argv, u->envp);
	}
	errno = saved;
	as_sys_exit(127);
}

/* Whether our pid namespace is a container's, not the machine's (PROC_PID_INIT_INO). */
static bool
in_container(void)
{
	static const char machine[] = "pid:[4026531836]";
	char ns[64];
	long n = as_sys_readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	return n > 0 && ((size_t)n != sizeof machine - 1 || memcmp(ns, machine, (size_t)n) != 0);
}

/* Whether our end ends the uploader too: we are our pid namespace's init, or a container's
 * init is our parent (tini, docker --init: it ends when its child does, and the namespace
 * with it).  Asked only where the parent is an init. */
static bool
ending_takes_it_along(pid_t me)
{
	return me == 1 || (getppid() == 1 && in_container());
}

/* Wait for the uploader to end, at most AS_UPLOAD_WAIT_MS: our end would end it. */
static void
wait_for(pid_t pid)
{
	enum { STEP_MS = 10 };
	for (int i = 0; i < AS_UPLOAD_WAIT_MS / STEP_MS; i++) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return;
		as_sys_sleep_ns(STEP_MS * 1000000ull);
	}
}

/* The argv's end: how the lock goes, whether we wait. */
static void
argv_tail(char **argv, bool handed, bool waited)
{
	size_t k = AS_UPLOAD_ARGV_TAIL;
	if (handed) {
		argv[k++] = (char *)"--lock-fd";
		argv[k++] = (char *)AS_UPLOAD_LOCK_FD_TEXT;
	} else {
		argv[k++] = (char *)"--wait-for-lock";
	}
	if (waited)
		argv[k++] = (char *)"--waited";
	argv[k] = NULL;
}

/* The upload lock, taken: its descriptor; -1 with *busy set when another holds it. */
static int
take_lock(const char *path, bool *busy)
{
	*busy = false;
	int lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* The same byte every uploader locks (delivery/upload/upload_lock.c). */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	if (lock < 0 || fcntl(lock, F_OFD_SETLK, &fl) == 0)
		return lock;
	*busy = errno == EAGAIN || errno == EACCES;
	close(lock);
	return -1;
}

as_upload_started
as_upload_now_start(void)
{
	as_upload_now_state *u = &as_upload_now;
	if (!u->armed)
		return AS_UPLOAD_OFF;
	bool busy;
	int lock = take_lock(u->lock_path, &busy);
	pid_t me = getpid();
	bool waited = lock >= 0 && ending_takes_it_along(me);
	/* Another uploader takes this report too, unless it is our own thread, which our end
	 * ends: then one is started that waits for the lock.  (Not where our end ends it too:
	 * the thread, frozen with the others, would hold the lock until then.) */
	if (lock < 0 && !(busy && u->thread_here && !ending_takes_it_along(me)))
		return busy ? AS_UPLOAD_BUSY : AS_UPLOAD_FAILED;
	char *end = u->pid_text + sizeof u->pid_text - 1;
	*end = '\0';
	u->argv[AS_UPLOAD_ARGV_PID] = as_put_dec(end, (uint64_t)me);
	argv_tail(u->argv, lock >= 0, waited);
	u->lock_fd = lock;
	u->ended_fd = waited ? -1 : (int)syscall(SYS_pidfd_open, me, 0);
	pid_t pid = clone(child, u->stack_top, CLONE_VM | SIGCHLD, u);
	if (u->ended_fd >= 0)
		close(u->ended_fd);
	/* The child has its own copy of the descriptor (its table was copied): ours goes.  A child
	 * that cannot exec ends with its copy, and the lock with it. */
	if (lock >= 0)
		close(lock);
	if (pid > 0 && waited)
		wait_for(pid);
	return pid <= 0 ? AS_UPLOAD_FAILED : lock >= 0 ? AS_UPLOAD_STARTED : AS_UPLOAD_AFTER_US;
}
