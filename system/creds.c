/*
 * creds.c — becoming the crashed process's user for good: supplementary
 * groups, then the group, then the user (real, effective and saved ids
 * alike), so that no id of root's is left to go back to, and the
 * capabilities go with root's uid.  Checked after: a drop that did not
 * take is a failure, never a write as root.  NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <grp.h>
#include <sys/prctl.h>
#include <unistd.h>

bool
pmi_creds_drop(const pm_creds *c)
{
	if (setgroups(c->ngroups, c->groups) != 0 || setresgid(c->gid, c->gid, c->gid) != 0 ||
	    setresuid(c->uid, c->uid, c->uid) != 0)
		return false;
	uid_t r, e, s;
	gid_t gr, ge, gs;
	if (getresuid(&r, &e, &s) != 0 || getresgid(&gr, &ge, &gs) != 0 || r != c->uid || e != c->uid ||
	    s != c->uid || gr != c->gid || ge != c->gid || gs != c->gid) {
		errno = EPERM;
		return false;
	}
	/* Once a user's, nothing this process runs may gain privileges (a set-user-ID file). */
	if (c->uid != 0 && (setuid(0) == 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)) {
		errno = EPERM;
		return false;
	}
	return true;
}
