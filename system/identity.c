/*
 * identity.c — the analysis identity: the system user and group
 * postmortem-core, as whom the handler parses a core whose report is root's
 * alone (the private spool), never as root.  enable makes them with useradd
 * (Debian's required passwd package) when they are missing, as a package's
 * maintainer script would: a system uid, its own group, no home, no shell.
 * disable leaves them, as packages leave their system users.  NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static bool
look_up(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(PM_ANALYSIS_USER);
	if (!pw)
		return false;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return true;
}

static bool
useradd(char *why, size_t cap)
{
	static char *const argv[] = { "useradd",      "--system",   "--user-group",      "--no-create-home",
		                      "--home-dir",   "/nonexistent", "--shell",         "/usr/sbin/nologin",
		                      "--comment",    "postmortem core analysis", PM_ANALYSIS_USER, NULL };
	static char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	pid_t pid;
	int err = posix_spawn(&pid, "/usr/sbin/useradd", NULL, NULL, argv, envp);
	if (err != 0) {
		snprintf(why, cap, "cannot run /usr/sbin/useradd (Debian's passwd package): %s", strerror(err));
		return false;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, cap, "useradd: %s", strerror(errno));
			return false;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, cap, "useradd %s failed (%s %d)", PM_ANALYSIS_USER,
		         WIFEXITED(status) ? "exit status" : "signal",
		         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return false;
	}
	return true;
}

bool
pmi_analysis_identity(uid_t *uid, gid_t *gid, bool *made, char *why, size_t cap)
{
	*made = false;
	if (!look_up(uid, gid)) {
		if (!useradd(why, cap))
			return false;
		if (!look_up(uid, gid)) {
			snprintf(why, cap, "useradd made no user %s that this machine's user database lists", PM_ANALYSIS_USER);
			return false;
		}
		*made = true;
	}
	if (*uid == 0 || *gid == 0) {
		snprintf(why, cap, "the user %s has root's %s (uid %u, gid %u): it must not", PM_ANALYSIS_USER,
		         *uid == 0 ? "uid" : "group", (unsigned)*uid, (unsigned)*gid);
		return false;
	}
	return true;
}
