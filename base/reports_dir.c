/*
 * reports_dir.c — where reports go, and making sure the directory exists.
 * NOT AS-safe.
 */
#include "reports_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
pmi_path_join(char *out, size_t cap, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (cap == 0 || la >= cap || lb >= cap - la)
		return -1;
	memcpy(out, a, la);
	memcpy(out + la, b, lb + 1);
	return (int)(la + lb);
}

/* A relative directory is taken from where the process is now: after a
 * chdir() it would name another place, and the report would be lost. */
static bool
make_absolute(char *path, size_t cap)
{
	char cwd[PATH_MAX], rel[PATH_MAX];
	if (path[0] == '/')
		return true;
	if (!getcwd(cwd, sizeof cwd))
		return false;
	if (pmi_path_join(rel, sizeof rel, "/", path) < 0)
		return false;
	return pmi_path_join(path, cap, strcmp(cwd, "/") == 0 ? "" : cwd, rel) > 0;
}

/* Joined with pmi_path_join, not snprintf: a process's first snprintf pages
 * in libc's printf engine, tens of microseconds of pm_install (issue 13). */
bool
pmi_config_reports_dir(const pm_config *cfg, char *out, size_t cap)
{
	const char *v;
	int n;
	if (cfg && cfg->reports_dir && *cfg->reports_dir)
		n = pmi_path_join(out, cap, cfg->reports_dir, "");
	else if ((v = getenv("POSTMORTEM_DIR")) && *v)
		n = pmi_path_join(out, cap, v, "");
	else if ((v = getenv("XDG_STATE_HOME")) && *v == '/')
		n = pmi_path_join(out, cap, v, "/postmortem");
	else if ((v = getenv("HOME")) && *v == '/')
		n = pmi_path_join(out, cap, v, "/.local/state/postmortem");
	else
		n = snprintf(out, cap, "/tmp/postmortem-%u", (unsigned)getuid());
	if (n <= 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return false;
	}
	return make_absolute(out, cap);
}

/* Creates each missing component of path.  Apart, and never inlined, so
 * that its PATH_MAX copy is on the stack only when a directory is missing:
 * in pmi_mkdirs' own frame it cost a first install a fresh stack page
 * (a page fault, 14-25 us here) at every start. */
static __attribute__((noinline)) int
make_each(const char *path)
{
	char buf[PATH_MAX];
	memcpy(buf, path, strlen(path) + 1); /* its length checked by pmi_mkdirs */
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (c == '\0')
			return 0;
	}
}

int
pmi_mkdirs(const char *path)
{
	if (*path == '\0' || strlen(path) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	struct stat st;
	/* Most starts find the directory made: one stat instead of a mkdir per component. */
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		if (make_each(path) != 0 || stat(path, &st) != 0)
			return -1;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return -1;
		}
	}
	/* As the effective ids, which make the files (access() asks as the real
	 * ones: the system reporter's child that works as a user has another's). */
	return faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS);
}
