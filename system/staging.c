/*
 * staging.c — a report made by an analysis that writes as the dedicated
 * identity (for the private spool, or a process of root's), brought to its
 * place by root (see staging.h).  The staging directory lies in
 * <sysdir>/staging/, root's alone, so that nobody but the analysis that
 * got its descriptor reaches it; what the analysis left there is data:
 * names are checked for their exact form, files opened without following
 * anything and copied byte for byte, never read for meaning.  NOT AS-safe.
 */
#include "staging.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

static const char *const exts[] = { ".dmp", ".json", ".crash" }; /* the text last: a report is there once it is */

int
pmi_staging_make(const char *sysdir, uid_t uid, gid_t gid, char *name, size_t cap, char *why, size_t wcap)
{
	char top[PATH_MAX];
	snprintf(top, sizeof top, "%s/staging", sysdir);
	struct stat st;
	if ((mkdir(top, 0700) != 0 && errno != EEXIST) || lstat(top, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != 0 || (st.st_mode & 077)) {
		snprintf(why, wcap, "%s is not a directory of root's alone", top);
		return -1;
	}
	int dir = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	unsigned char r[8];
	if (dir < 0 || getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		snprintf(why, wcap, "cannot open %s: %s", top, strerror(errno));
		if (dir >= 0)
			close(dir);
		return -1;
	}
	snprintf(name, cap, "%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
	int fd = mkdirat(dir, name, 0700) == 0 ? openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	close(dir);
	if (fd < 0 || fchown(fd, uid, gid) != 0 || fchmod(fd, 0700) != 0) {
		snprintf(why, wcap, "cannot make a staging directory in %s: %s", top, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* name is <UUID><ext> (upper-case hex, dashed 8-4-4-4-12, as the engine
 * names a report), for one of exts; the UUID into id. */
static bool
report_name(const char *name, char id[37], int *ext)
{
	for (int i = 0; i < 36; i++) {
		char c = name[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')))
			return false;
	}
	for (int k = 0; k < 3; k++)
		if (strcmp(name + 36, exts[k]) == 0) {
			memcpy(id, name, 36);
			id[36] = '\0';
			*ext = k;
			return true;
		}
	return false;
}

typedef struct copy_src {
	int fd;
	off_t size;
} copy_src;

static pm_err
copy_bytes(const void *ctx, pm_out *o)
{
	const copy_src *src = ctx;
	char buf[1 << 16];
	off_t left = src->size;
	while (left > 0) {
		ssize_t n = read(src->fd, buf, left < (off_t)sizeof buf ? (size_t)left : sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return PM_E_IO;
		pmi_out_put(o, buf, (size_t)n);
		left -= n;
	}
	return PM_OK;
}

/* One staged file, checked, copied into pending under its name. */
static bool
land_one(int staging, uid_t owner, int pending, const char *name)
{
	int fd = openat(staging, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == owner &&
	          st.st_size <= PM_STAGING_FILE_MAX &&
	          pmi_store_write_file(pending, name, copy_bytes, &(copy_src){ fd, st.st_size }) == PM_OK;
	if (fd >= 0)
		close(fd);
	return ok;
}

bool
pmi_staging_land(int staging, uid_t owner, int pending, char *what, size_t cap)
{
	int dup_fd = openat(staging, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		snprintf(what, cap, "the staging directory cannot be read");
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	char id[37] = "", seen[3] = { 0 };
	struct dirent *e;
	for (int n = 0; n < 64 && (e = readdir(d)); n++) {
		char this_id[37];
		int ext;
		if (strlen(e->d_name) <= 42 && report_name(e->d_name, this_id, &ext) && (!id[0] || strcmp(id, this_id) == 0)) {
			memcpy(id, this_id, sizeof id);
			seen[ext] = 1;
		}
	}
	closedir(d);
	bool landed = seen[2] || seen[1];
	int copied = 0;
	for (int k = 0; k < 3 && id[0]; k++) {
		char name[48];
		snprintf(name, sizeof name, "%s%s", id, exts[k]);
		if (seen[k] && land_one(staging, owner, pending, name))
			copied++;
		else if (seen[k] && k > 0)
			landed = false;
	}
	fsync(pending);
	if (!id[0])
		snprintf(what, cap, "the analysis left no report");
	else if (!landed)
		snprintf(what, cap, "%s could not be taken from the staging directory", id);
	else
		snprintf(what, cap, "%d files of %s", copied, id);
	return landed;
}

void
pmi_staging_remove(const char *sysdir, const char *name, int staging)
{
	int dup_fd = openat(staging, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	/* unlinkat follows nothing; what will not go (a directory) stays, and so does staging. */
	for (int n = 0; d && n < 4096 && (e = readdir(d));)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && unlinkat(staging, e->d_name, 0) == 0)
			n++;
	if (d)
		closedir(d);
	else if (dup_fd >= 0)
		close(dup_fd);
	close(staging);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/staging/%s", sysdir, name);
	rmdir(path);
}
