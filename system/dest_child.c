/*
 * dest_child.c — where a crash's report goes, found as its user: the
 * private spool is root's to choose from the kernel's word alone
 * (destination.c, pmi_dest_first); every other place is found by a child
 * that runs as the process's user (real and saved ids the analysis
 * identity's, so that the user cannot stop it and hold the kernel's slot;
 * a process of root's: root's), reaches the process only through its
 * pinned /proc directory and its environment only through the snapshot's
 * bytes, and hands back the pending/ it opened.  A report root keeps goes,
 * when the machine delivers those (`enable --upload-private`), to the
 * private spool the analysis identity owns, which a child running as that
 * identity opens.  NOT AS-safe.
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
	o->reports[sizeof o->reports - 1] = '\0';
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
	const char *spool;        /* the spool's directory, or NULL: resolve it */
	bool identity;            /* the analysis identity's spool: the child is that identity already */
	pm_said *out;
} dest_job;

/* The reports directory whose pending/ fd is, as the kernel names it now: "" when it is not one. */
static void
reports_of(int fd, char *out, size_t cap)
{
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	out[0] = '\0';
	if (n > 9 && path[0] == '/' && memcmp(path + n - 8, "/pending", 8) == 0 && (size_t)(n - 8) < cap) {
		memcpy(out, path, (size_t)(n - 8));
		out[n - 8] = '\0';
	}
}

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
	if (j->identity ? !pmi_sandbox_no_reach()
	                : c->f.uid[0] != 0 && (!pmi_sandbox_become(&ids) || !pmi_sandbox_no_reach()))
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
		reports_of(pending, o->reports, sizeof o->reports);
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
	if (o->kind != PM_DEST_APP)
		snprintf(o->reports, sizeof o->reports, "%s", o->dir);
	char full[256];
	if (j->spool && pmi_spool_full(pending, full, sizeof full)) {
		snprintf(o->msg, PM_SAID_MSG, "%.700s: not written: %s", o->dir, full);
		return PM_R_FULL;
	}
	return pmi_fd_send(sock, pending) ? PM_R_WRITTEN : PM_R_REFUSED;
}

/* A report root keeps, to the private spool the analysis identity owns and
 * delivers: its pending/, opened by a child that is that identity. */
static int
private_upload(pm_crash *c, pm_said *o, pm_analysis_as *as)
{
	char spool[PATH_MAX], why[512];
	*as = PM_ANALYSIS_AS_IDENTITY;
	o->kind = PM_DEST_PRIVATE;
	if (!pmi_dest_private_upload(c->sysdir, c->f.uid[0], c->ana_uid, c->ana_gid, spool, sizeof spool, why,
	                             sizeof why)) {
		snprintf(o->msg, PM_SAID_MSG, "refused: %s", why);
		return -1;
	}
	pm_creds identity = { c->ana_uid, c->ana_gid, NULL, 0 };
	dest_job j = { c, spool, true, o };
	int fd;
	bool timed_out;
	int rc = pmi_child_run(&identity, destination, &j, DEST_MS, &fd, &timed_out, NULL);
	pmi_said_ends(o);
	o->kind = PM_DEST_PRIVATE;
	if (rc != PM_R_WRITTEN && fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (rc != PM_R_WRITTEN)
		pmi_child_failed(o, rc, timed_out);
	return fd;
}

int
pmi_place_find(pm_crash *c, pm_said *o, const char **reason, pm_dest_kind *asked, pm_analysis_as *as)
{
	char spool[PATH_MAX], why[512];
	pm_dest_kind kind = pmi_dest_first(&c->a, &c->f, reason);
	/* A report root keeps (the private spool, a process of root's) is made by the
	 * dedicated identity; a user's, as that user. */
	*as = kind != PM_DEST_PRIVATE && c->f.uid[0] != 0 ? PM_ANALYSIS_AS_USER : PM_ANALYSIS_AS_STAGED;
	o->reports[0] = '\0';
	if (kind == PM_DEST_PRIVATE && c->deliver_private) {
		*asked = kind;
		return private_upload(c, o, as);
	}
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
		dest_job j = { c, kind == PM_DEST_SPOOL ? spool : NULL, false, o };
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
		if (fd >= 0 && c->f.uid[0] == 0 && c->deliver_private) {
			/* Root's process, which did not report itself: delivered like the private spool. */
			close(fd);
			*reason = "a process of root's, whose reports root keeps";
			return private_upload(c, o, as);
		}
		return fd;
	}
	return -1;
}
