/*
 * dest_child.c — where a crash's report goes, found as its user: the
 * private spool is root's to choose from the kernel's word alone
 * (destination.c, pmi_dest_first); every other place is found by a child
 * that runs as the process's user (real and saved ids the analysis
 * identity's, so that the user cannot stop it and hold the kernel's slot;
 * a process of root's: root's), reaches the process only through its
 * pinned /proc directory and its environment only through the snapshot's
 * bytes, and hands back the pending/ it opened.  NOT AS-safe.
 */
#include "handler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "reports_dir.h"
#include "sandbox.h"
#include "store.h"

enum { DEST_MS = 30000 };

void
pmi_said_ends(pm_said *o)
{
	o->msg[PM_SAID_MSG - 1] = '\0';
	o->dir[sizeof o->dir - 1] = '\0';
}

int
pmi_child_failed(pm_said *o, int rc, bool timed_out)
{
	if (rc < 0 || rc == PM_R_CREDS)
		snprintf(o->msg, PM_SAID_MSG, "%s",
		         timed_out            ? "refused: the report took longer than its limit"
		         : rc == PM_R_CREDS   ? "refused: cannot take the process's credentials"
		                              : "the report's child died");
	return rc;
}

int
pmi_pending_open(const char *dir, char *msg)
{
	char why[256] = "";
	int root = pmi_mkdirs(dir) == 0 ? pmi_private_dir_open(AT_FDCWD, dir, true, why, sizeof why) : -1;
	if (root < 0 && !why[0])
		snprintf(why, sizeof why, "%s", strerror(errno));
	int pending = root >= 0 ? pmi_store_open_subdir(root, "pending", why, sizeof why) : -1;
	if (root >= 0)
		close(root);
	if (pending < 0)
		snprintf(msg, PM_SAID_MSG, "refused %.700s: %s", dir, why);
	return pending;
}

typedef struct dest_job {
	const pm_crash *c;
	const char *spool;        /* the per-user spool's directory, or NULL: resolve it */
	pm_said *out;
} dest_job;

/* In the child, as the process's user: where its report goes, pending/
 * opened and handed back; whether it reported itself already. */
static int
destination(void *arg, int sock)
{
	dest_job *j = arg;
	const pm_crash *c = j->c;
	pm_said *o = j->out;
	int keep[] = { c->pin.dir, sock };
	if (!pmi_sandbox_fds(keep, 2))
		return PM_R_REFUSED;
	pm_sandbox_ids ids = { c->ana_uid, c->f.uid[0], c->ana_gid, c->f.gid[0], c->f.groups, c->f.ngroups };
	if (c->f.uid[0] != 0 && (!pmi_sandbox_become(&ids) || !pmi_sandbox_no_reach()))
		return PM_R_CREDS;
	prctl(PR_SET_NAME, "pm-destination", 0, 0, 0);
	pmi_pause(c->pause.destination_ms);
	pm_env_facts env;
	pmi_env_facts(&c->snap, c->a.pid, &env);
	int pending = -1;
	if (j->spool)
		snprintf(o->dir, sizeof o->dir, "%s", j->spool);
	else if ((pending = pmi_dest_app_pending(c->pin.dir, &env)) >= 0) {
		o->kind = PM_DEST_APP;
		snprintf(o->dir, sizeof o->dir, "the pending/ of its pm_install");
	} else if ((o->kind = pmi_dest_resolve(c->pin.dir, &env, c->f.uid[0], o->dir, sizeof o->dir)) == PM_DEST_SPOOL)
		return PM_R_SPOOL;
	else if (o->kind == PM_DEST_NONE) {
		snprintf(o->msg, PM_SAID_MSG, "refused: its reports directory cannot be resolved");
		return PM_R_REFUSED;
	}
	char id[256];
	/* Only its own pm_install's pending/ can hold what it wrote itself. */
	if (pending >= 0 && pmi_dest_has_report(pending, c->a.pid_ns, c->pin.start_ticks, c->f.start_time, id, sizeof id)) {
		snprintf(o->msg, PM_SAID_MSG, "reported in-process already (%s in %.700s): nothing added", id, o->dir);
		return PM_R_ALREADY;
	}
	if (pending < 0 && (pending = pmi_pending_open(o->dir, o->msg)) < 0)
		return PM_R_REFUSED;
	char full[256];
	if (j->spool && pmi_spool_full(pending, full, sizeof full)) {
		snprintf(o->msg, PM_SAID_MSG, "%.700s: not written: %s", o->dir, full);
		return PM_R_FULL;
	}
	return pmi_fd_send(sock, pending) ? PM_R_WRITTEN : PM_R_REFUSED;
}

int
pmi_place_find(pm_crash *c, pm_said *o, const char **reason, pm_dest_kind *asked)
{
	char spool[PATH_MAX], why[512];
	pm_dest_kind kind = pmi_dest_first(&c->a, &c->f, reason);
	for (int round = 0; round < 2; round++) {
		o->kind = *asked = kind;
		if (kind != PM_DEST_OWN && !pmi_dest_spool(c->sysdir, kind, &c->f, spool, sizeof spool, why, sizeof why)) {
			snprintf(o->msg, PM_SAID_MSG, "refused: %s", why);
			return -1;
		}
		if (kind == PM_DEST_PRIVATE) {
			/* Root's own: no child, and no report of the process's to look for. */
			snprintf(o->dir, sizeof o->dir, "%s", spool);
			int pending = pmi_pending_open(spool, o->msg);
			if (pending >= 0 && pmi_spool_full(pending, why, sizeof why)) {
				snprintf(o->msg, PM_SAID_MSG, "%.700s: not written: %.300s", spool, why);
				close(pending);
				pending = -1;
			}
			return pending;
		}
		pm_creds root = pmi_dest_creds(&c->f);
		dest_job j = { c, kind == PM_DEST_SPOOL ? spool : NULL, o };
		int fd;
		bool timed_out;
		int rc = pmi_child_run(c->f.uid[0] == 0 ? &root : NULL, destination, &j, DEST_MS, &fd, &timed_out, NULL);
		pmi_said_ends(o);
		if (o->kind != PM_DEST_APP)
			o->kind = kind;
		if (rc == PM_R_SPOOL && kind == PM_DEST_OWN) {
			kind = PM_DEST_SPOOL;
			*reason = "it has no home of its own";
			continue;
		}
		if (rc != PM_R_WRITTEN && fd >= 0) {
			close(fd);
			fd = -1;
		}
		if (rc != PM_R_WRITTEN)
			pmi_child_failed(o, rc, timed_out);
		return fd;
	}
	return -1;
}
