/*
 * kill_in_write.c — LD_PRELOAD shim: the crash handler's writer dies half
 * way through a write.
 *
 * With PM_KILL_AT_WRITE=N, the Nth write(2) into a file under a pending/
 * directory writes half its buffer, then the process sends itself SIGKILL:
 * the torn state a power cut or an OOM kill leaves, reproduced exactly and
 * without timing.  Runs inside a signal handler: only async-signal-safe
 * calls, no stdio, nothing resolved lazily.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long kill_at;
static long seen;

__attribute__((constructor)) static void
read_setting(void)
{
	const char *v = getenv("PM_KILL_AT_WRITE");
	kill_at = v ? strtol(v, NULL, 10) : 0;
}

/* Does fd name a file below a directory called pending? */
static int
under_pending(int fd)
{
	char link[32] = "/proc/self/fd/", target[4096];
	char digits[12];
	int n = 0;
	unsigned v = (unsigned)fd;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	size_t at = strlen(link);
	while (n > 0)
		link[at++] = digits[--n];
	link[at] = '\0';
	ssize_t len = readlink(link, target, sizeof target - 1);
	if (len <= 0)
		return 0;
	target[len] = '\0';
	return strstr(target, "/pending/") != NULL;
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	if (kill_at > 0 && under_pending(fd) && ++seen == kill_at) {
		syscall(SYS_write, fd, buf, n / 2);
		kill(getpid(), SIGKILL);
	}
	return syscall(SYS_write, fd, buf, n);
}
