/*
 * reports_dir.c — where reports go, and making sure the directory exists.
 * NOT AS-safe.
 */
#include "reports_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	int n = snprintf(rel, sizeof rel, "%s", path);
	if (n < 0 || (size_t)n >= sizeof rel)
		return false;
	n = snprintf(path, cap, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, rel);
	return n > 0 && (size_t)n < cap;
}

bool
pmi_config_reports_dir(const pm_config *cfg, char *out, size_t cap)
{
	const char *v;
	int n;
	if (cfg && cfg->reports_dir && *cfg->reports_dir)
		n = snprintf(out, cap, "%s", cfg->reports_dir);
	else if ((v = getenv("POSTMORTEM_DIR")) && *v)
		n = snprintf(out, cap, "%s", v);
	else if ((v = getenv("XDG_STATE_HOME")) && *v == '/')
		n = snprintf(out, cap, "%s/postmortem", v);
	else if ((v = getenv("HOME")) && *v == '/')
		n = snprintf(out, cap, "%s/.local/state/postmortem", v);
	else
		n = snprintf(out, cap, "/tmp/postmortem-%u", (unsigned)getuid());
	if (n <= 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return false;
	}
	return make_absolute(out, cap);
}

int
pmi_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	struct stat st;
	/* Most starts find the directory made: one stat instead of a mkdir per component. */
	bool made = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	for (char *p = buf + 1; !made; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (c == '\0')
			break;
	}
	if (!made && stat(path, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return access(path, W_OK | X_OK);
}
