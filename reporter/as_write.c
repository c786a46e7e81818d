/*
 * as_write.c — AS-SAFE writing of both report files (see as_write.h).
 *
 * A full disk or an unwritable directory makes a write fail quickly; the
 * handler then goes on to end the process with its signal.  openat on the
 * directory held since install, O_NOFOLLOW and O_EXCL keep a planted
 * symlink from redirecting the write.
 */
#include "as_write.h"
#include "write.h"

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

typedef pm_err write_fn(const as_capture_ctx *c, pm_out *o);

static pm_err
write_text(const as_capture_ctx *c, pm_out *o)
{
	return pmi_write_text(c->report, o);
}

static pm_err
write_json(const as_capture_ctx *c, pm_out *o)
{
	return pmi_write_json(c->report, o);
}

/* Every fsync is timed apart from the writing around it (pm_crash_phases). */
static int
timed_fsync(const as_capture_ctx *c, int fd)
{
	uint64_t t = as_sys_now_ns();
	int rc = fsync(fd);
	c->phases->fsync += as_sys_lap_ns(&t);
	return rc;
}

/* Nanoseconds since start, less the fsyncs since the fsync total was `fsyncs`. */
static uint64_t
without_fsyncs(const as_capture_ctx *c, uint64_t start, uint64_t fsyncs)
{
	return as_sys_now_ns() - start - (c->phases->fsync - fsyncs);
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
write_one(const as_capture_ctx *c, int dir, write_fn *fn, const char *ext, char *final_path)
{
	char tmp[NAME_MAX + 1], name[NAME_MAX + 1];
	const size_t cap = PATH_MAX;
	const char *id = c->report->header.incident_id ? c->report->header.incident_id : "unknown";
	make_name(tmp, sizeof tmp, ".", id, ext, ".tmp");
	make_name(name, sizeof name, "", id, ext, "");
	/* pm_install refused a directory too long for this: nothing is cut. */
	as_strlcpy(final_path, c->pending_dir, cap);
	as_strlcat(final_path, "/", cap);
	as_strlcat(final_path, name, cap);
	unlinkat(dir, tmp, 0); /* left by an attempt that faulted (see as_handler.c) */
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	pm_out o;
	pmi_out_init_fd(&o, fd, c->io_buf, c->io_cap);
	bool ok = fn(c, &o) == PM_OK && timed_fsync(c, fd) == 0;
	ok = close(fd) == 0 && ok;
	if (ok && renameat(dir, tmp, dir, name) == 0)
		return true;
	unlinkat(dir, tmp, 0);
	return false;
}

bool
as_write_minidump(const as_capture_ctx *c)
{
	if (!c->minidump)
		return false;
	int saved = errno;
	uint64_t start = as_sys_now_ns(), fsyncs = c->phases->fsync;
	int dir = as_pending_fd();
	bool ok = write_one(c, dir, as_minidump, ".dmp", c->minidump_path);
	timed_fsync(c, dir);
	c->phases->minidump = without_fsyncs(c, start, fsyncs);
	errno = saved;
	return ok;
}

bool
as_write_report(const as_capture_ctx *c)
{
	int saved = errno;
	uint64_t start = as_sys_now_ns(), fsyncs = c->phases->fsync;
	int dir = as_pending_fd();
	bool text = write_one(c, dir, write_text, ".crash", c->crash_path);
	c->report->complete = true;
	bool json = write_one(c, dir, write_json, ".json", c->json_path);
	timed_fsync(c, dir);
	c->phases->write = without_fsyncs(c, start, fsyncs);
	errno = saved;
	return text && json;
}
