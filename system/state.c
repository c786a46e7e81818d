/*
 * state.c — what `postmortem system enable` replaced, kept in the system
 * reporter's directory (/var/lib/postmortem/state): the previous
 * kernel.core_pattern, core_pipe_limit and suid_dumpable, and the pattern
 * enable set.  Values are written in hex, so that `disable` puts back
 * exactly the bytes that were there.  The handler trusts the file only
 * when root owns it and nobody else may write to it or its directory.
 * NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char header[] = "# postmortem system reporter: what `postmortem system enable` replaced "
                             "(values in hex; docs/system-reporter.md)\n";

static void
put_hex(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s ", key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		fprintf(f, "%02x", *p);
	fputc('\n', f);
}

static bool
get_hex(const char *hex, char *out, size_t cap)
{
	size_t n = strlen(hex);
	if (n % 2 || n / 2 >= cap)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v == 0)
			return false;
		out[i] = (char)v;
	}
	out[n / 2] = '\0';
	return true;
}

/* "uid:gid", neither of them root's. */
static bool
get_ids(const char *s, uid_t *uid, gid_t *gid)
{
	unsigned long u, g;
	int end = 0;
	if (sscanf(s, "%lu:%lu%n", &u, &g, &end) != 2 || s[end] || u == 0 || g == 0 || u >= (uid_t)-1 ||
	    g >= (gid_t)-1)
		return false;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return true;
}

/* The directory, opened when root owns it and only root may write to it. */
static int
open_root_dir(const char *dir, char *why, size_t cap)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0) {
		int e = errno;
		snprintf(why, cap, "%s: %s", dir, e == ELOOP ? "a symbolic link" : strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		snprintf(why, cap, "%s: not root's alone (owner %u, mode %04o)", dir, (unsigned)st.st_uid,
		         (unsigned)(st.st_mode & 07777));
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

pm_err
pmi_state_read(const char *dir, pm_system_state *st, char *why, size_t cap)
{
	memset(st, 0, sizeof *st);
	int dfd = open_root_dir(dir, why, cap);
	if (dfd < 0)
		return errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	int fd = openat(dfd, PM_SYSTEM_STATE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	close(dfd);
	struct stat sb;
	if (fd < 0) {
		snprintf(why, cap, "%s/%s: %s", dir, PM_SYSTEM_STATE, strerror(errno));
		return errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_uid != 0 || (sb.st_mode & 022)) {
		close(fd);
		snprintf(why, cap, "%s/%s: not a regular file root alone may write", dir, PM_SYSTEM_STATE);
		return PM_E_IO;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return PM_E_NOMEM;
	}
	char line[1024];
	unsigned seen = 0;
	bool ok = true;
	while (ok && fgets(line, sizeof line, f)) {
		char key[32], hex[800] = "";
		if (line[0] == '#' || sscanf(line, "%31s %799s", key, hex) < 1)
			continue;
		if (strcmp(key, "core_pattern") == 0)
			ok = get_hex(hex, st->before.pattern, sizeof st->before.pattern), seen |= 1;
		else if (strcmp(key, "core_pipe_limit") == 0)
			ok = get_hex(hex, st->before.pipe_limit, sizeof st->before.pipe_limit), seen |= 2;
		else if (strcmp(key, "suid_dumpable") == 0)
			ok = get_hex(hex, st->before.suid_dumpable, sizeof st->before.suid_dumpable), seen |= 4;
		else if (strcmp(key, "ours") == 0)
			ok = get_hex(hex, st->ours, sizeof st->ours), seen |= 8;
		else if (strcmp(key, "analysis_ids") == 0)
			ok = get_ids(hex, &st->analysis_uid, &st->analysis_gid);
	}
	fclose(f);
	if (!ok || seen != 15) {
		snprintf(why, cap, "%s/%s: damaged (a value is missing or not hex)", dir, PM_SYSTEM_STATE);
		return PM_E_FORMAT;
	}
	return PM_OK;
}

pm_err
pmi_state_write(const char *dir, const pm_system_state *st, char *why, size_t cap)
{
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(why, cap, "cannot create %s: %s", dir, strerror(errno));
		return PM_E_IO;
	}
	int dfd = open_root_dir(dir, why, cap);
	if (dfd < 0)
		return PM_E_IO;
	static const char tmp[] = "." PM_SYSTEM_STATE ".tmp";
	unlinkat(dfd, tmp, 0);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	bool ok = f != NULL;
	if (ok) {
		fputs(header, f);
		put_hex(f, "core_pattern", st->before.pattern);
		put_hex(f, "core_pipe_limit", st->before.pipe_limit);
		put_hex(f, "suid_dumpable", st->before.suid_dumpable);
		put_hex(f, "ours", st->ours);
		if (st->analysis_uid)
			fprintf(f, "analysis_ids %lu:%lu\n", (unsigned long)st->analysis_uid,
			        (unsigned long)st->analysis_gid);
		ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
		ok = fclose(f) == 0 && ok;
	} else if (fd >= 0)
		close(fd);
	ok = ok && renameat(dfd, tmp, dfd, PM_SYSTEM_STATE) == 0 && fsync(dfd) == 0;
	if (!ok) {
		snprintf(why, cap, "cannot write %s/%s: %s", dir, PM_SYSTEM_STATE, strerror(errno));
		unlinkat(dfd, tmp, 0);
	}
	close(dfd);
	return ok ? PM_OK : PM_E_IO;
}

pm_err
pmi_state_remove(const char *dir, char *why, size_t cap)
{
	int dfd = open_root_dir(dir, why, cap);
	if (dfd < 0)
		return PM_E_IO;
	bool ok = unlinkat(dfd, PM_SYSTEM_STATE, 0) == 0 || errno == ENOENT;
	if (!ok)
		snprintf(why, cap, "cannot remove %s/%s: %s", dir, PM_SYSTEM_STATE, strerror(errno));
	close(dfd);
	return ok ? PM_OK : PM_E_IO;
}
