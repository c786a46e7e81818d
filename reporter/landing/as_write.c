/*
 * as_write.c — AS-SAFE writing of both report files (see as_write.h).
 *
 * A full disk or an unwritable directory makes a write fail quickly; the
 * handler then goes on to end the process with its signal.  openat on the
 * directory held since install, O_NOFOLLOW and O_EXCL keep a planted
 * symlink from redirecting the write.
 */
#include "as_write.h"
#include "group.h"
#include "text.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "as_capture.h"
#include "as_fds.h"
#include "as_fs_order.h"
#include "as_memory.h"
#include "as_minidump.h"
#include "as_sync_lent.h"
#include "model.h"

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

/* Where the files go: the capture's directory, else pending/ held from install. */
static int
files_dir(const as_capture_ctx *c)
{
	return c->dir_fd >= 0 ? c->dir_fd : as_pending_fd();
}

/* A file written whole under its hidden temporary name, its writeback started. */
typedef struct staged {
	int fd; /* -1: nothing to name */
	char tmp[NAME_MAX + 1], name[NAME_MAX + 1];
} staged;

/* A staged file that will not get its name: its temporary goes. */
static void
drop(int dir, staged *f)
{
	close(f->fd);
	f->fd = -1;
	unlinkat(dir, f->tmp, 0);
}

/*
 * Files are created relative to the descriptor of pending/ held since
 * install: no path is resolved again, and it needs no free descriptor.
 * The disk starts writing the bytes at once, so that they are on their way
 * while the next file is rendered (land waits for them).
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
	drop(dir, f);
}

/* fd's writeback waited for, then (sync) its fsync. */
static bool
durable(int fd, bool sync)
{
	return as_sys_writeback(fd, true) == 0 && (!sync || fsync(fd) == 0);
}

/* How long a lent fsync under way is waited for, in what this thread's own
 * file took (at least lent_wait_min_ns): past it, this thread fsyncs the
 * file too (two fsyncs of one descriptor at once are harmless). */
enum { LENT_SYNC_PATIENCE = 4 };
static const uint64_t lent_wait_min_ns = 1000000;

/* The lent file durable: by the lent thread, or else here. */
static bool
lent_durable(int fd, uint64_t own)
{
	uint64_t patience = own * LENT_SYNC_PATIENCE;
	switch (as_sync_lent_outcome(patience > lent_wait_min_ns ? patience : lent_wait_min_ns)) {
	case AS_SYNC_DONE:
		return true;
	case AS_SYNC_FAILED:
		return false;
	default:
		return durable(fd, true);
	}
}

/*
 * Make staged files durable under their names (what is durable when:
 * docs/architecture.md).  Each file's writeback is waited for before its
 * rename.  Where the filesystem may commit a rename before the file's
 * blocks, each file is also fsync'd before its rename, then the directory:
 * no name reaches the disk before its file's bytes.  Where it cannot, the
 * files are renamed, then pending/ is fsync'd: on ext4 with a journal a
 * directory's fsync commits the whole running transaction, names, sizes
 * and extents, behind a cache flush, and is the one commit (the files'
 * fsyncs after it would find nothing to commit and only flush the cache
 * again); elsewhere (XFS) the files are fsync'd after it.  A file whose
 * writeback fails, or whose fsync fails where it comes first, gets no
 * name.  Where two files are fsync'd, the last one's fsync is lent to a
 * frozen thread (as_sync_lent.h) while this thread fsyncs the first: the
 * two flushes reach the disk together.  The waits and fsyncs add to
 * *fsync_total (NULL: not timed).  True if every file landed.
 */
static bool
land(int dir, staged *f, size_t n, uint64_t *fsync_total)
{
	as_fs_order order = as_fs_order_of(dir);
	bool sync_first = order == AS_FS_UNORDERED, sync_after = order == AS_FS_ORDERED || order == AS_FS_IN_MEMORY;
	/* Two fsyncs at once gain nothing where they cost nothing. */
	bool two = (sync_first || order == AS_FS_ORDERED) && n > 1 && f[n - 1].fd >= 0;
	bool lent = two && sync_first && as_sync_lend(f[n - 1].fd);
	uint64_t t = as_sys_now_ns(), spent = 0, own = 0;
	for (size_t i = 0; i < n; i++) {
		if (f[i].fd < 0)
			continue;
		bool written = lent && i == n - 1 ? lent_durable(f[i].fd, own) : durable(f[i].fd, sync_first);
		own = as_sys_lap_ns(&t);
		spent += own;
		if (!written || renameat(dir, f[i].tmp, dir, f[i].name) != 0)
			drop(dir, &f[i]);
		t = as_sys_now_ns();
	}
	/* Its result decides nothing, as before: the files are in place either
	 * way (pm_crash_info.written), and some filesystems refuse to sync a
	 * directory. */
	fsync(dir);
	bool ok = true;
	if (sync_after) {
		lent = two && f[n - 1].fd >= 0 && as_sync_lend(f[n - 1].fd);
		spent += as_sys_lap_ns(&t);
		for (size_t i = 0; i < n; i++) {
			if (f[i].fd >= 0)
				ok = (lent && i == n - 1 ? lent_durable(f[i].fd, own) : fsync(f[i].fd) == 0) && ok;
			own = as_sys_lap_ns(&t);
			spent += own;
		}
	}
	spent += as_sys_lap_ns(&t);
	if (fsync_total)
		*fsync_total += spent;
	for (size_t i = 0; i < n; i++)
		ok = f[i].fd >= 0 && close(f[i].fd) == 0 && ok;
	return ok;
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
	int dir = files_dir(c);
	staged dmp;
	stage(c, dir, as_minidump, ".dmp", c->minidump_path, &dmp);
	bool ok = land(dir, &dmp, 1, NULL);
	c->phases->minidump = as_sys_now_ns() - start;
	errno = saved;
	return ok;
}

/*
 * The writer buffer's pages are fresh at the first capture, and on virtual
 * machines a page fault costs several times what a page of one
 * MADV_POPULATE_WRITE call costs (as_prefault.h).  Both files go through
 * it, the larger, the JSON twin, at about 120 bytes a frame beside a few
 * KB of header, registers and images (7 KB for one thread of 35 frames):
 * the part of the buffer it fills is faulted in with one call.
 */
static void
populate_io_buf(const as_capture_ctx *c)
{
	enum { JSON_BYTES_PER_FRAME = 120, JSON_BYTES_BESIDE = 4096 };
	const pm_report *r = c->report;
	size_t frames = 0;
	for (uint32_t i = 0; i < r->thread_count; i++)
		frames += r->threads[i].frame_count;
	size_t want = JSON_BYTES_BESIDE + frames * JSON_BYTES_PER_FRAME;
	as_sys_populate(c->io_buf, want < c->io_cap ? want : c->io_cap);
}

/* Both files are written before either is landed: the .crash's bytes are
 * on their way while the .json is rendered, and on a filesystem that orders
 * renames one journal commit makes the whole report durable. */
bool
as_write_report(const as_capture_ctx *c)
{
	int saved = errno;
	uint64_t start = as_sys_now_ns(), fsyncs = c->phases->fsync;
	int dir = files_dir(c);
	staged f[2];
	populate_io_buf(c);
	/* The crash group (docs/grouping.md), as every reader computes it for a report
	 * that does not carry it; none when the arena is full. */
	(void)pmi_group_keep(c->report);
	stage(c, dir, write_text, ".crash", c->crash_path, &f[0]);
	c->report->complete = true;
	stage(c, dir, write_json, ".json", c->json_path, &f[1]);
	bool landed = land(dir, f, 2, &c->phases->fsync);
	/* The thread kept for the landing parks now (the minidump has one file). */
	as_walker_dismiss();
	c->phases->write = without_fsyncs(c, start, fsyncs);
	errno = saved;
	return landed;
}
