/*
 * as_write.c — AS-SAFE writing of both report files (see as_write.h).
 *
 * A full disk or an unwritable directory makes a write fail quickly; the
 * handler then goes on to end the process with its signal.  openat on the
 * directory held since install, O_NOFOLLOW and O_EXCL keep a planted
 * symlink from redirecting the write.
 */
#include "as_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "as_fds.h"
#include "as_minidump.h"
#include "as_sys.h"
#include "as_util.h"
#include "out.h"

typedef pm_err write_fn(const pm_report *r, pm_out *o);

/* Every fsync is timed apart from the writing around it (pm_crash_phases). */
static int
timed_fsync(int fd)
{
	uint64_t t = as_sys_now_ns();
	int rc = fsync(fd);
	as_g.phases.fsync += as_sys_lap_ns(&t);
	return rc;
}

/* Nanoseconds since start, less the fsyncs since the fsync total was `fsyncs`. */
static uint64_t
without_fsyncs(uint64_t start, uint64_t fsyncs)
{
	return as_sys_now_ns() - start - (as_g.phases.fsync - fsyncs);
}

static void
make_name(char *out, size_t cap, const char *lead, const char *id, const char *ext, const char *tail)
{
	as_strlcpy(out, lead, cap);
	as_strlcat(out, id, cap);
	as_strlcat(out, ext, cap);
	as_strlcat(out, tail, cap);
}

/* Files are created relative to the descriptor of pending/ held since
 * install: no path is resolved again, and it needs no free descriptor. */
static bool
write_one(int dir, const pm_report *r, write_fn *fn, const char *ext, char *final_path, size_t cap)
{
	char tmp[NAME_MAX + 1], name[NAME_MAX + 1];
	const char *id = r->header.incident_id ? r->header.incident_id : "unknown";
	make_name(tmp, sizeof tmp, ".", id, ext, ".tmp");
	make_name(name, sizeof name, "", id, ext, "");
	/* pm_install refused a directory too long for this: nothing is cut. */
	as_strlcpy(final_path, as_g.pending_dir, cap);
	as_strlcat(final_path, "/", cap);
	as_strlcat(final_path, name, cap);
	unlinkat(dir, tmp, 0); /* left by an attempt that faulted (see as_handler.c) */
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	pm_out o;
	pm_out_init_fd(&o, fd, as_g.io_buf, as_g.io_cap);
	bool ok = fn(r, &o) == PM_OK && timed_fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (ok && renameat(dir, tmp, dir, name) == 0)
		return true;
	unlinkat(dir, tmp, 0);
	return false;
}

bool
as_write_minidump(const pm_report *r)
{
	if (!as_g.minidump)
		return false;
	int saved = errno;
	uint64_t start = as_sys_now_ns(), fsyncs = as_g.phases.fsync;
	int dir = as_pending_fd();
	bool ok = write_one(dir, r, as_minidump, ".dmp", as_g.minidump_path, sizeof as_g.minidump_path);
	timed_fsync(dir);
	as_g.phases.minidump = without_fsyncs(start, fsyncs);
	errno = saved;
	return ok;
}

bool
as_write_report(pm_report *r)
{
	int saved = errno;
	uint64_t start = as_sys_now_ns(), fsyncs = as_g.phases.fsync;
	int dir = as_pending_fd();
	bool text = write_one(dir, r, pm_write_text, ".crash", as_g.crash_path, sizeof as_g.crash_path);
	r->complete = true;
	bool json = write_one(dir, r, pm_write_json, ".json", as_g.json_path, sizeof as_g.json_path);
	timed_fsync(dir);
	as_g.phases.write = without_fsyncs(start, fsyncs);
	errno = saved;
	return text && json;
}
