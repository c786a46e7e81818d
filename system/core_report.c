/*
 * core_report.c — the engine's side of core_report.h: the crash's core
 * captured (core_capture.h) with what the handler read of /proc/<pid> as
 * root (the executable, the app's id and version, the start), and written
 * into the pending/ the handler chose.  NOT AS-safe.
 */
#include "core_report.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "core_capture.h"

/* /proc/<pid>, when these credentials may read what the engine reads there
 * (maps asks the kernel's ptrace check) and its pids are ours: a process
 * of another pid namespace names its threads by numbers /proc does not. */
static const char *
readable_proc(const pm_crash_args *a, char *buf, size_t cap)
{
	char maps[64];
	snprintf(buf, cap, "/proc/%d", a->pid);
	snprintf(maps, sizeof maps, "/proc/%d/maps", a->pid);
	int fd = a->pid == a->pid_ns ? open(maps, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return NULL;
	close(fd);
	return buf;
}

pm_err
pmi_core_report(const pm_core_target *t, int pending_fd, char *why, size_t cap)
{
	if (!t->core) {
		snprintf(why, cap, "not written: the core could not be read");
		return PM_E_FORMAT;
	}
	char proc[64], dir[PATH_MAX + 16];
	pm_core_facts f = {
		.exe = t->facts->exe,
		.proc = readable_proc(t->args, proc, sizeof proc),
		.app_id = t->facts->env_app_id,
		.app_version = t->facts->env_app_version,
		.start_time = t->facts->start_time,
		.time = t->crash_time,
		.this_machine = true,
		.source = "the kernel's core, by the system reporter",
	};
	pm_core_capture *cc;
	char what[512];
	pm_err e = pmi_core_capture(t->core, &f, &cc, what, sizeof what);
	if (e != PM_OK) {
		snprintf(why, cap, "not written: %s", what);
		return e;
	}
	snprintf(dir, sizeof dir, "%s/pending", t->reports_dir);
	bool ok = pmi_core_capture_write(cc, pending_fd, dir, why, cap);
	pmi_core_capture_free(cc);
	return ok ? PM_OK : PM_E_IO;
}
