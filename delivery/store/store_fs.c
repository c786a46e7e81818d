/*
 * store_fs.c — file names and file access for the report store.
 *
 * Everything goes through a directory descriptor with O_NOFOLLOW: a symlink
 * planted under a report's name is read as "not a regular file", renamed as
 * the link itself, never followed out of the reports directory.
 */
#include "store.h"
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "reports_dir.h"

/* libpostmortem's, when the process has it (this library never needs it to load). */
extern const char *pm_reports_dir(void) __attribute__((weak));

const char *const pmi_sdir_names[PM_SDIR_COUNT] = { "pending", "quarantine", "sent" };

static const char *const kind_ext[PM_SK_COUNT] = { ".crash", ".json", ".crash.tmp", ".json.tmp", ".reason",
                                                   ".dmp", ".dmp.tmp" };
static const char store_tmp_ext[] = ".store.tmp";

bool
pmi_store_resolve_dir(const char *dir, char *out, size_t cap)
{
	if (dir && *dir) {
		int n = snprintf(out, cap, "%s", dir);
		return n > 0 && (size_t)n < cap;
	}
	const char *installed = pm_reports_dir ? pm_reports_dir() : "";
	if (*installed) {
		int n = snprintf(out, cap, "%s", installed);
		return n > 0 && (size_t)n < cap;
	}
	return pmi_config_reports_dir(NULL, out, cap);
}

int
pmi_store_open_subdir(int root, const char *name, char *why, size_t cap)
{
	if (mkdirat(root, name, 0700) != 0 && errno != EEXIST) {
		snprintf(why, cap, "%s", strerror(errno));
		return -1;
	}
	return pmi_private_dir_open(root, name, false, why, cap);
}

bool
pmi_store_valid_id(const char *id)
{
	size_t n = 0;
	if (!id || id[0] == '.' || id[0] == '\0')
		return false;
	for (; id[n]; n++) {
		char c = id[n];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		          c == '.' || c == '_' || c == '-';
		if (!ok || n + 1 >= PM_ID_MAX)
			return false;
	}
	return true;
}

static bool
ends_with(const char *s, size_t n, const char *ext, size_t *stem)
{
	size_t k = strlen(ext);
	if (n <= k || memcmp(s + n - k, ext, k) != 0)
		return false;
	*stem = n - k;
	return true;
}

pm_skind
pmi_store_parse_name(const char *name, char id[PM_ID_MAX])
{
	size_t n = strlen(name), stem;
	bool hidden = name[0] == '.';
	if (hidden && ends_with(name, n, store_tmp_ext, &stem))
		return PM_SK_STORE_TMP;
	/* Longest extensions first: ".crash.tmp" also ends in ".tmp". */
	static const pm_skind order[] = { PM_SK_CRASH_TMP, PM_SK_JSON_TMP, PM_SK_DMP_TMP, PM_SK_REASON,
	                                  PM_SK_CRASH, PM_SK_JSON, PM_SK_DMP };
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		pm_skind k = order[i];
		bool tmp = pmi_store_kind_is_tmp(k);
		if (tmp != hidden || !ends_with(name, n, kind_ext[k], &stem))
			continue;
		size_t from = tmp ? 1 : 0;
		if (stem - from >= PM_ID_MAX)
			return PM_SK_OTHER;
		memcpy(id, name + from, stem - from);
		id[stem - from] = '\0';
		return pmi_store_valid_id(id) ? k : PM_SK_OTHER;
	}
	return PM_SK_OTHER;
}

bool
pmi_store_kind_is_tmp(pm_skind kind)
{
	return kind == PM_SK_CRASH_TMP || kind == PM_SK_JSON_TMP || kind == PM_SK_DMP_TMP;
}

void
pmi_store_file_name(char *out, size_t cap, const char *id, pm_skind kind)
{
	snprintf(out, cap, "%s%s%s", pmi_store_kind_is_tmp(kind) ? "." : "", id, kind_ext[kind]);
}

static pm_err
read_all(int fd, size_t want, char *buf, size_t *got, pm_read_error *err)
{
	size_t n = 0;
	while (n < want) {
		ssize_t k = read(fd, buf + n, want - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			pmi_read_fail(err, 0, "read failed: %s", strerror(errno));
			return PM_E_IO;
		}
		if (k == 0)
			break; /* shrank while we read: take what is there */
		n += (size_t)k;
	}
	*got = n;
	return PM_OK;
}

pm_err
pmi_store_slurp(int dfd, const char *name, size_t max, bool prefix, char **data, size_t *len,
               pm_read_error *err)
{
	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO planted under a report's name must not block the open. */
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int why = errno;
		pmi_read_fail(err, 0, "%s: %s", name, why == ELOOP ? "a symbolic link" : strerror(why));
		return why == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	}
	struct stat st;
	pm_err e = PM_OK;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		pmi_read_fail(err, 0, "%s: not a regular file", name);
		e = PM_E_IO;
	} else if ((uint64_t)st.st_size > max && !prefix) {
		pmi_read_fail(err, 0, "%s: larger than %zu bytes", name, max);
		e = PM_E_LIMIT;
	}
	size_t want = e == PM_OK && (uint64_t)st.st_size < max ? (size_t)st.st_size : max;
	char *buf = e == PM_OK ? malloc(want + 1) : NULL;
	if (e == PM_OK && !buf)
		e = PM_E_NOMEM;
	if (e == PM_OK)
		e = read_all(fd, want, buf, len, err);
	close(fd);
	if (e != PM_OK) {
		free(buf);
		*len = 0;
		return e;
	}
	buf[*len] = '\0';
	*data = buf;
	return PM_OK;
}

static int
create_tmp(int dfd, const char *tmp)
{
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	/* Another store is writing the same file, or one died doing so. */
	struct stat st;
	if (fstatat(dfd, tmp, &st, AT_SYMLINK_NOFOLLOW) != 0 || time(NULL) - st.st_mtime <= PM_STALE_SECONDS)
		return -1;
	unlinkat(dfd, tmp, 0);
	return openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

pm_err
pmi_store_write_file(int dfd, const char *name, pm_store_fill_fn *fill, const void *ctx)
{
	char tmp[PM_ID_MAX + 32];
	int k = snprintf(tmp, sizeof tmp, ".%s%s", name, store_tmp_ext);
	if (k < 0 || (size_t)k >= sizeof tmp)
		return PM_E_INVAL;
	int fd = create_tmp(dfd, tmp);
	if (fd < 0)
		return PM_E_IO;
	char buf[1 << 14];
	pm_out o;
	pmi_out_init_fd(&o, fd, buf, sizeof buf);
	pm_err e = fill(ctx, &o);
	if (e == PM_OK && (!pmi_out_flush(&o) || o.failed || fsync(fd) != 0))
		e = PM_E_IO;
	if (close(fd) != 0 && e == PM_OK)
		e = PM_E_IO;
	if (e == PM_OK && renameat(dfd, tmp, dfd, name) != 0)
		e = PM_E_IO;
	if (e != PM_OK)
		unlinkat(dfd, tmp, 0);
	return e;
}

pm_err
pmi_store_move(int from, const char *from_name, int to, const char *to_name)
{
	if (renameat(from, from_name, to, to_name) == 0)
		return PM_OK;
	return errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
}

pm_err
pmi_store_unlink(int dfd, const char *name)
{
	if (unlinkat(dfd, name, 0) == 0)
		return PM_OK;
	if (errno == EISDIR && unlinkat(dfd, name, AT_REMOVEDIR) == 0)
		return PM_OK;
	return errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
}

uint64_t
pmi_store_report_bytes(int dfd, const char *id)
{
	static const pm_skind kinds[] = { PM_SK_CRASH, PM_SK_JSON, PM_SK_DMP };
	uint64_t total = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char name[PM_ID_MAX + 16];
		struct stat st;
		pmi_store_file_name(name, sizeof name, id, kinds[i]);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	}
	return total;
}
