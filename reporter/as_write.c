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

/* The report's fsyncs are timed apart from the writing around them
 * (pm_crash_phases); the minidump's count in its own phase (NULL). */
static int
timed_fsync(int fd, uint64_t *total)
{
	uint64_t t = as_sys_now_ns();
	int rc = fsync(fd);
	if (total)
		*total += as_sys_lap_ns(&t);
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

/* A file written whole under its hidden temporary name, its writeback started. */
typedef struct staged {
	int fd; /* -1: nothing to name */
	char tmp[NAME_MAX + 1], name[NAME_MAX + 1];
} staged;

/*
 * Files are created relative to the descriptor of pending/ held since
 * install: no path is resolved again, and it needs no free descriptor.
 * The disk starts writing the bytes at once, so that they are on their way
 * while the next file is rendered (give_name waits for them).
 */
static void
stage(const as_capture_ctx *c, int dir, write_fn *fn, const char *ext, char *final_path, staged *f)
{
	const size_t cap = PATH_MAX;
	const char *id = c->report->header.incident_id ? c->report->header.incident_id : "unknown";
	make_name(f->tmp, sizeof f->tmp, ".", id, ext, ".tmp");
	make_name(f->name, sizeof f->name, "", id, ext, "");
	/* pm_install refused a directory too long for this: nothing is cut. */
	as_strlcpy(final_path, c->pending_dir, cap);
	as_strlcat(final_path, "/", cap);
	as_strlcat(final_path, f->name, cap);
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	f->fd = openat(dir, f->tmp, flags, 0600);
	if (f->fd < 0 && errno == EEXIST) {
		unlinkat(dir, f->tmp, 0); /* left by an attempt that faulted (see as_handler.c) */
		f->fd = openat(dir, f->tmp, flags, 0600);
	}
	if (f->fd < 0)
		return;
	pm_out o;
	pmi_out_init_fd(&o, f->fd, c->io_buf, c->io_cap);
	if (fn(c, &o) == PM_OK) {
		as_sys_writeback(f->fd, false);
		return;
	}
	close(f->fd);
	f->fd = -1;
	unlinkat(dir, f->tmp, 0);
}

/* Wait until a staged file's bytes are written (a write error there keeps
 * it from its name), then give it its name: the rename is the last change
 * to it, and no journal commit can carry the name without its blocks. */
static void
give_name(int dir, staged *f, uint64_t *wait_total)
{
	if (f->fd < 0)
		return;
	uint64_t t = as_sys_now_ns();
	bool written = as_sys_writeback(f->fd, true) == 0;
	if (wait_total)
		*wait_total += as_sys_lap_ns(&t);
	if (written && renameat(dir, f->tmp, dir, f->name) == 0)
		return;
	close(f->fd);
	f->fd = -1;
	unlinkat(dir, f->tmp, 0);
}

/* fsync a named file and close it; false when it has no name or did not sync. */
static bool
seal(staged *f, uint64_t *fsync_total)
{
	if (f->fd < 0)
		return false;
	bool ok = timed_fsync(f->fd, fsync_total) == 0;
	return close(f->fd) == 0 && ok;
}

/*
 * The directory's fsync comes first: on ext4 it commits the running
 * transaction whatever it holds (a directory's fsync always does), which
 * carries the names, the files' sizes and extents, and whatever else the
 * filesystem's other writers queued; the files' own fsyncs then find their
 * changes committed and only flush the disk's cache.  Files first, the
 * directory's fsync would commit a second time whenever anything else on
 * the filesystem changed in between.
 */
static bool
seal_dir(int dir, uint64_t *fsync_total)
{
	return timed_fsync(dir, fsync_total) == 0;
}

/* Its fsyncs are in the minidump's phase: the report's fsync phase ends
 * where the report is durable (docs/architecture.md, "What is durable when"). */
bool
as_write_minidump(const as_capture_ctx *c)
{
	if (!c->minidump)
		return false;
	int saved = errno;
	uint64_t start = as_sys_now_ns();
	int dir = as_pending_fd();
	staged dmp;
	stage(c, dir, as_minidump, ".dmp", c->minidump_path, &dmp);
	give_name(dir, &dmp, NULL);
	bool ok = seal_dir(dir, NULL);
	ok = seal(&dmp, NULL) && ok;
	c->phases->minidump = as_sys_now_ns() - start;
	errno = saved;
	return ok;
}

/*
 * The writer buffer's pages are fresh at the first capture, and on virtual
 * machines a page fault costs several times what a page of one
 * MADV_POPULATE_WRITE call costs (docs/benchmarks.md, (a2)).  The text is
 * written first, about 80 bytes a frame: when that is more than a few
 * pages, the part of the buffer it fills is faulted in with one call.
 */
static void
populate_io_buf(const as_capture_ctx *c)
{
	enum { TEXT_BYTES_PER_FRAME = 80, MIN_PAGES = 4, PAGE = 4096 };
	const pm_report *r = c->report;
	size_t frames = 0;
	for (uint32_t i = 0; i < r->thread_count; i++)
		frames += r->threads[i].frame_count;
	size_t want = frames * TEXT_BYTES_PER_FRAME;
	if (want >= MIN_PAGES * PAGE)
		as_sys_populate(c->io_buf, want < c->io_cap ? want : c->io_cap);
}

/*
 * Both files are written and their writeback waited for before either is
 * renamed, and both are renamed before anything is fsync'd: one journal
 * commit makes the whole report durable (what is durable when:
 * docs/architecture.md).  The wait for the writeback counts as fsync time.
 */
bool
as_write_report(const as_capture_ctx *c)
{
	int saved = errno;
	uint64_t start = as_sys_now_ns(), fsyncs = c->phases->fsync;
	int dir = as_pending_fd();
	staged text, json;
	populate_io_buf(c);
	stage(c, dir, write_text, ".crash", c->crash_path, &text);
	c->report->complete = true;
	stage(c, dir, write_json, ".json", c->json_path, &json);
	give_name(dir, &text, &c->phases->fsync);
	give_name(dir, &json, &c->phases->fsync);
	bool landed = seal_dir(dir, &c->phases->fsync);
	landed = seal(&text, &c->phases->fsync) && landed;
	landed = seal(&json, &c->phases->fsync) && landed;
	c->phases->write = without_fsyncs(c, start, fsyncs);
	errno = saved;
	return landed;
}
