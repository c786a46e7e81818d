/*
 * session_system.c — what one store opening knows of the system for the runs
 * it closes (sessions.h): the clocks, this boot's start, the machine's id, and
 * the kernel log's OOM kills, read only when a run needs them.
 */
#include "sessions.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t
clock_us(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
pmi_system_init(pmi_system *sys)
{
	memset(sys, 0, sizeof *sys);
	sys->now_us = clock_us(CLOCK_REALTIME);
	sys->boot_real_us = sys->now_us - clock_us(CLOCK_BOOTTIME);
	sys->mono_real_us = sys->now_us - clock_us(CLOCK_MONOTONIC);
	int fd = open("/etc/machine-id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, sys->machine_id, sizeof sys->machine_id - 1) : -1;
	sys->machine_id[n == 33 - 1 ? 32 : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

void
pmi_system_free(pmi_system *sys)
{
	free(sys->kills);
	sys->kills = NULL;
	sys->kill_count = 0;
}

int64_t
pmi_system_oom_kill(pmi_system *sys, const pmi_run *run)
{
	if (!sys->kmsg_read)
		pmi_kmsg_read(sys);
	for (size_t i = 0; i < sys->kill_count; i++) {
		const pmi_oom_kill *k = &sys->kills[i];
		int64_t at = sys->mono_real_us + k->boot_us;
		/* The same pid, killed after the run began (a later process may have the pid again),
		 * and the same name as far as the kernel keeps one (15 bytes). */
		if (k->pid == run->pid && at >= run->started_us && strncmp(k->comm, run->exe, sizeof k->comm - 1) == 0)
			return at;
	}
	return 0;
}
