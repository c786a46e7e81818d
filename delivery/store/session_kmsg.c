/*
 * session_kmsg.c — the OOM killer's kills as the kernel logs them
 * (/dev/kmsg), which name the process: "Out of memory: Killed process 1234
 * (name) ..." and "Memory cgroup out of memory: Killed process 1234 (name)
 * ...".  Reading the log needs CAP_SYSLOG where kernel.dmesg_restrict is 1
 * (Debian's default): elsewhere a run killed by the OOM killer stays an
 * abnormal end without a named cause, unless its memory cgroup's count says
 * more (session_close.c).
 */
#include "sessions.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The longest record the kernel hands out in one read, with room to spare. */
enum { RECORD_MAX = 8192, KILLS_MAX = 4096 };

static bool
digits(const char **p, const char *end, int64_t *out)
{
	int64_t v = 0;
	const char *s = *p;
	for (; s < end && *s >= '0' && *s <= '9' && v < INT64_MAX / 10 - 9; s++)
		v = v * 10 + (*s - '0');
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

bool
pmi_kmsg_oom(const char *rec, size_t n, pmi_oom_kill *out)
{
	const char *end = rec + n, *semi = memchr(rec, ';', n);
	/* The prefix: "<prio>,<seq>,<us>,..." */
	const char *p = memchr(rec, ',', n);
	int64_t us;
	if (!semi || !p || !(p = memchr(p + 1, ',', (size_t)(semi - p - 1))) || (++p, !digits(&p, semi, &us)))
		return false;
	const char *nl = memchr(semi, '\n', (size_t)(end - semi));
	const char *msg_end = nl ? nl : end;
	static const char killed[] = "Killed process ";
	const char *k = memmem(semi + 1, (size_t)(msg_end - semi - 1), killed, sizeof killed - 1);
	if (!k)
		return false;
	p = k + sizeof killed - 1;
	if (!digits(&p, msg_end, &out->pid) || msg_end - p < 2 || p[0] != ' ' || p[1] != '(')
		return false;
	p += 2;
	const char *close = memchr(p, ')', (size_t)(msg_end - p));
	if (!close)
		return false;
	size_t len = (size_t)(close - p) < sizeof out->comm - 1 ? (size_t)(close - p) : sizeof out->comm - 1;
	memcpy(out->comm, p, len);
	out->comm[len] = '\0';
	out->boot_us = us;
	return true;
}

void
pmi_kmsg_read(pmi_system *sys)
{
	sys->kmsg_read = true;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *rec = fd >= 0 ? malloc(RECORD_MAX) : NULL;
	/* A fresh descriptor reads from the oldest record; each read returns one. */
	for (size_t i = 0; rec && i < 1000000 && sys->kill_count < KILLS_MAX; i++) {
		ssize_t n = read(fd, rec, RECORD_MAX);
		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten while we read: go on with the next */
		if (n <= 0)
			break;
		pmi_oom_kill k;
		if (!pmi_kmsg_oom(rec, (size_t)n, &k))
			continue;
		pmi_oom_kill *grown = realloc(sys->kills, (sys->kill_count + 1) * sizeof *grown);
		if (!grown)
			break;
		sys->kills = grown;
		sys->kills[sys->kill_count++] = k;
	}
	free(rec);
	if (fd >= 0)
		close(fd);
}
