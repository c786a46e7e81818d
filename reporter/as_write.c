/*
 * as_write.c — AS-SAFE writing of both report files (see as_write.h).
 *
 * A full disk or an unwritable directory makes a write fail quickly; the
 * handler then goes on to end the process with its signal.  O_NOFOLLOW and
 * O_EXCL keep a planted symlink from redirecting the write.
 */
#include "as_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "as_minidump.h"
#include "as_util.h"
#include "formats/out.h"

typedef pm_err write_fn(const pm_report *r, pm_out *o);

static void
make_path(char *out, size_t cap, const char *dir, const char *lead, const char *id, const char *ext)
{
	pm_as_strlcpy(out, dir, cap);
	pm_as_strlcat(out, "/", cap);
	pm_as_strlcat(out, lead, cap);
	pm_as_strlcat(out, id, cap);
	pm_as_strlcat(out, ext, cap);
}

static bool
write_one(const pm_report *r, write_fn *fn, const char *ext, char *final_path, size_t cap)
{
	char tmp[PATH_MAX], tmp_ext[16];
	const char *id = r->header.incident_id ? r->header.incident_id : "unknown";
	pm_as_strlcpy(tmp_ext, ext, sizeof tmp_ext);
	pm_as_strlcat(tmp_ext, ".tmp", sizeof tmp_ext);
	make_path(tmp, sizeof tmp, pm_g.pending_dir, ".", id, tmp_ext);
	make_path(final_path, cap, pm_g.pending_dir, "", id, ext);
	unlink(tmp); /* left by an attempt that faulted (see as_handler.c) */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	pm_out o;
	pm_out_init_fd(&o, fd, pm_g.io_buf, pm_g.io_cap);
	bool ok = fn(r, &o) == PM_OK && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (ok && rename(tmp, final_path) == 0)
		return true;
	unlink(tmp);
	return false;
}

static void
sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

bool
pm_as_write_minidump(const pm_report *r)
{
	if (!pm_g.minidump)
		return false;
	int saved = errno;
	bool ok = write_one(r, pm_as_minidump, ".dmp", pm_g.minidump_path, sizeof pm_g.minidump_path);
	sync_dir(pm_g.pending_dir);
	errno = saved;
	return ok;
}

bool
pm_as_write_report(pm_report *r)
{
	int saved = errno;
	bool text = write_one(r, pm_write_text, ".crash", pm_g.crash_path, sizeof pm_g.crash_path);
	r->complete = true;
	bool json = write_one(r, pm_write_json, ".json", pm_g.json_path, sizeof pm_g.json_path);
	sync_dir(pm_g.pending_dir);
	errno = saved;
	return text && json;
}
