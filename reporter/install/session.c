/*
 * session.c — this run's session (docs/store.md, "Sessions"; the runs file:
 * base/session_record.h).  pm_install claims a free record of
 * <reports_dir>/runs, writes the run's start into it and keeps the file open
 * with the record locked until the process ends, whichever way it ends: the
 * kernel drops the lock then, and the store takes a record nobody holds for
 * a run that is over.  exit()'s hook appends the end (as_session.c).  The
 * crash path adds nothing: the store recognises a crashed run by its report.
 * NOT AS-safe: runs in pm_install (five system calls, no stdio:
 * docs/benchmarks.md, "Sessions").
 */
#include "session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "as_handler.h"
#include "as_memory.h"
#include "reports_dir.h"

/* exit()'s hook and the fork handler are registered once per process. */
PM_START_DATA static bool hooked;

static void
at_exit(int status, void *unused)
{
	(void)unused;
	as_session_end(status);
}

/* A forked child is not the run: it lets go of the runs file, and so of the
 * lock, which would otherwise say the run lives on after the parent ended
 * (a lock is the open file's, which the child shares). */
static void
forget(void)
{
	int fd = atomic_exchange(&as_session.fd, -1);
	struct stat st;
	/* Only if the number is still the runs file: the app may have reused it. */
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == as_session.dev && st.st_ino == as_session.ino)
		close(fd);
}

void
pmi_session_begin(int runs, const pm_facts *f, bool off)
{
	pid_t me = getpid();
	/* Installing again keeps the run's session; a forked child's install starts its own. */
	if (atomic_load(&as_session.fd) >= 0 && as_session.pid == me) {
		if (runs >= 0)
			close(runs);
		return;
	}
	forget();
	struct stat st;
	if (off || runs < 0 || fstat(runs, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (runs >= 0)
			close(runs);
		return;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	pmi_run_start start = {
		.pid = me, .started_us = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u,
		.app_id = f->app_id, .app_version = f->app_version, .exe = f->exe_name, .oom_kills = -1,
	};
	int slot = pmi_run_claim(runs, pmi_run_first_slot(me, start.started_us));
	char buf[PMI_RUN_TEXT - PMI_RUN_END_ROOM];
	size_t len = slot < 0 ? 0 : pmi_run_format(buf, sizeof buf, &start);
	off_t at = (off_t)slot * PMI_RUN_BYTES;
	if (slot < 0 || pwrite(runs, buf, len, at) != (ssize_t)len) {
		close(runs);
		return;
	}
	as_session.pid = me;
	as_session.dev = st.st_dev;
	as_session.ino = st.st_ino;
	as_session.slot = (unsigned)slot;
	as_session.end_at = at + (off_t)len;
	atomic_store(&as_session.fd, runs);
	if (!hooked) {
		hooked = true;
		on_exit(at_exit, NULL);
		pthread_atfork(NULL, NULL, forget);
	}
}
