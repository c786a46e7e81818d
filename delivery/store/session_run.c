/*
 * session_run.c — a run watched from outside (`postmortem run`): the watcher
 * writes the program's record in the runs file (base/session_record.h) as
 * pm_install would have, holds it while the program runs, and ends it with
 * what waitpid said — a death by SIGKILL too, which nothing inside the
 * program can see.  It also reads the memory cgroup's OOM kills before and
 * after (the program runs in the watcher's cgroup), which pm_install does
 * not do at every start: a rise while the program ran names the OOM killer.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "postmortem-tools.h"
#include "reports_dir.h"
#include "store.h"

static uint64_t
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static const char *
env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

void
pm_run_watch_start(pm_run_watch *w, const char *reports_dir)
{
	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->started_us = now_us();
	w->oom_kills = pmi_cgroup_oom_file(w->oom_file, sizeof w->oom_file) ? pmi_cgroup_oom_kills(w->oom_file) : -1;
	char dir[PATH_MAX];
	const char *off = getenv("POSTMORTEM_SESSIONS");
	if ((off && strcmp(off, "0") == 0) || !pmi_store_resolve_dir(reports_dir, dir, sizeof dir))
		return;
	struct stat st;
	int pending = pmi_reports_dir_prepare(dir, &st, &w->fd);
	if (pending >= 0)
		close(pending);
}

pm_err
pm_run_watch_spawned(pm_run_watch *w, int64_t pid, const char *program)
{
	if (w->fd < 0)
		return PM_E_NOTFOUND;
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof link, "/proc/%lld/exe", (long long)pid);
	/* What the program's own reports name it; a program that ended already has no exe to read. */
	ssize_t n = readlink(link, exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	const char *path = n > 0 ? exe : program ? program : "???", *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	pmi_run_start start = {
		.pid = pid, .started_us = w->started_us, .app_id = env_or("POSTMORTEM_APP_ID", name),
		.app_version = env_or("POSTMORTEM_APP_VERSION", "???"), .exe = name, .oom_kills = w->oom_kills,
		.oom_file = w->oom_file,
	};
	int slot = pmi_run_claim(w->fd, pmi_run_first_slot(pid, w->started_us));
	char buf[PMI_RUN_TEXT - PMI_RUN_END_ROOM];
	size_t len = slot >= 0 ? pmi_run_format(buf, sizeof buf, &start) : 0;
	off_t at = (off_t)slot * PMI_RUN_BYTES;
	if (slot < 0 || pwrite(w->fd, buf, len, at) != (ssize_t)len) {
		close(w->fd);
		w->fd = -1;
		return PM_E_IO;
	}
	w->slot = (unsigned)slot;
	w->end_at = (uint64_t)at + len;
	return PM_OK;
}

pm_err
pm_run_watch_end(pm_run_watch *w, int wait_status)
{
	if (w->fd < 0)
		return PM_E_NOTFOUND;
	if (w->end_at == 0 || wait_status < 0) {
		/* Nothing started, or how it ended is not known: the record (if any) stays without an end. */
		close(w->fd);
		w->fd = -1;
		return PM_E_NOTFOUND;
	}
	char line[PMI_RUN_END_ROOM];
	unsigned long long now = (unsigned long long)now_us();
	int64_t oom = WIFSIGNALED(wait_status) && w->oom_kills >= 0 ? pmi_cgroup_oom_kills(w->oom_file) : -1;
	int n;
	if (oom >= 0)
		n = snprintf(line, sizeof line, "end signal %d %llu %lld\n", WTERMSIG(wait_status), now, (long long)oom);
	else if (WIFSIGNALED(wait_status))
		n = snprintf(line, sizeof line, "end signal %d %llu\n", WTERMSIG(wait_status), now);
	else
		n = snprintf(line, sizeof line, "end exit %d %llu\n", WEXITSTATUS(wait_status), now);
	bool ok = n > 0 && (size_t)n < sizeof line && pwrite(w->fd, line, (size_t)n, (off_t)w->end_at) == n;
	/* Closing lets go of the record's lock: the run is over, and the store may collect it. */
	close(w->fd);
	w->fd = -1;
	return ok ? PM_OK : PM_E_IO;
}
