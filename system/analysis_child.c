/*
 * analysis_child.c — the report's analysis: everything that parses the
 * core, the mapped files and /proc's bytes runs in a child of root's that
 * seals itself before it reads a byte of them (sandbox.c: its own
 * descriptors alone, the empty root <sysdir>/empty, never root's ids,
 * no_new_privs, Landlock, seccomp), killed at its limit.  A user's report
 * is written as the user straight into the user's directory (which a child
 * running as the user opened: root writes nothing there), after storm
 * control (delivery/store: the crash group's earlier reports there, read
 * in the sandbox, decide what stays); a report of the private spool root
 * delivers, as the analysis identity straight into that identity's
 * spool, the same way; a report root keeps, by the analysis identity into
 * a staging directory root copies from (staging.c), where the spool's cap
 * is the rule (root parses none of it).  NOT AS-safe.
 */
#include "handler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_report.h"
#include "store.h"
#include "sandbox.h"
#include "staging.h"

enum { REPORT_MS = 120000 };

typedef struct analysis_job {
	pm_crash *c;
	int out_fd;               /* where it writes: a pending/, or a staging directory */
	int empty_root;
	pm_analysis_as as;
	pm_said *out;
} analysis_job;

/* In the child: sealed (sandbox.h), then the engine over the core. */
static int
analysis(void *arg, int sock)
{
	(void)sock;
	analysis_job *j = arg;
	pm_crash *c = j->c;
	pm_said *o = j->out;
	/* Opened while root and outside the new root: how each mapped file is opened for reading. */
	int self_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t nkeep = 0, cap = c->mf.nfiles + 8;
	int *keep = malloc(cap * sizeof *keep);
	if (!keep)
		return PM_R_SANDBOX;
	const int fixed[] = { j->out_fd, c->mem, c->debug_fd, self_fd, j->empty_root };
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		keep[nkeep++] = fixed[i];
	for (size_t i = 0; i < c->mf.nfiles; i++)
		keep[nkeep++] = c->mf.files[i].fd;
	bool fds = pmi_sandbox_fds(keep, nkeep);
	free(keep);
	prctl(PR_SET_NAME, "pm-analysis", 0, 0, 0);
	if (!fds || !pmi_sandbox_chroot(j->empty_root)) {
		snprintf(o->msg, PM_SAID_MSG, "not written: the analysis cannot be shut in an empty root: %s",
		         strerror(errno));
		return PM_R_SANDBOX;
	}
	close(j->empty_root);
	/* A report root keeps (or delivers from its private spool) reads what the
	 * process mapped as root would; the user's, what that user may read. */
	bool as_user = j->as == PM_ANALYSIS_AS_USER;
	if (!as_user)
		pmi_map_files_reopen(&c->mf, self_fd, 0 /* /dev/null's (pmi_sandbox_fds) */);
	pm_sandbox_ids ids = { c->ana_uid, c->ana_uid, c->ana_gid, c->ana_gid, NULL, 0 };
	if (as_user)
		ids = (pm_sandbox_ids){ c->ana_uid, c->f.uid[0], c->ana_gid, c->f.gid[0], c->f.groups, c->f.ngroups };
	if (!pmi_sandbox_become(&ids)) {
		snprintf(o->msg, PM_SAID_MSG, "not written: the analysis cannot take its identity: %s", strerror(errno));
		return PM_R_SANDBOX;
	}
	if (as_user)
		pmi_map_files_reopen(&c->mf, self_fd, 0);
	close(self_fd);
	/* Storm control's records, made now (the seal lets it make no directory), as whoever the
	 * files are: where they cannot be had, every report is kept. */
	int groups = j->as == PM_ANALYSIS_AS_STAGED ? -1 : pmi_groups_open(j->out_fd, true);
	/* No file it writes may grow past what root would take from staging:
	 * an analysis gone wrong fills no disk with one. */
	struct rlimit fsize = { PM_STAGING_FILE_MAX, PM_STAGING_FILE_MAX };
	char why[512] = "its files' size cannot be limited";
	pm_sandbox_seal seal;
	if (setrlimit(RLIMIT_FSIZE, &fsize) != 0 ||
	    !pmi_sandbox_seal(j->out_fd, groups, c->debug_fd, &seal, why, sizeof why)) {
		snprintf(o->msg, PM_SAID_MSG, "not written: %s", why);
		return PM_R_SANDBOX;
	}
	pmi_pause(c->pause.analysis_ms);
	pm_env_facts env;
	pmi_env_facts(&c->snap, c->a.pid, &env);
	pm_core_target t = { c->core, &c->a, &c->f, &c->snap, &env, o->kind, o->dir, c->started, c->debug_fd, groups };
	pm_err e = pmi_core_report(&t, j->out_fd, why, sizeof why);
	snprintf(o->msg, PM_SAID_MSG, "%.500s: %.500s", o->dir, why);
	return e == PM_OK ? PM_R_WRITTEN : PM_R_NOT_WRITTEN;
}

/* <sysdir>/empty: the analysis's root, root's, nobody else's to write, empty. */
static int
empty_root(const char *sysdir, char *msg)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/empty", sysdir);
	if (mkdir(path, 0555) != 0 && errno != EEXIST) {
		snprintf(msg, PM_SAID_MSG, "not written: cannot make %.700s: %s", path, strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	bool empty = fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 0 && !(st.st_mode & 022);
	DIR *d = empty ? fdopendir(openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d)))
		empty &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	if (d)
		closedir(d);
	else
		empty = false;
	if (!empty) {
		snprintf(msg, PM_SAID_MSG, "not written: %.700s is not an empty directory of root's alone", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
pmi_analysis_run(pm_crash *c, int pending, pm_analysis_as as, pm_said *o, long *peak_kib)
{
	int rc = -1;
	char staged[32] = "";
	int out = pending, root = empty_root(c->sysdir, o->msg);
	if (root >= 0 && as == PM_ANALYSIS_AS_STAGED)
		out = pmi_staging_make(c->sysdir, c->ana_uid, c->ana_gid, staged, sizeof staged, o->msg, PM_SAID_MSG);
	if (root >= 0 && out >= 0) {
		analysis_job j = { c, out, root, as, o };
		int fd;
		bool timed_out;
		rc = pmi_child_run(NULL, analysis, &j, REPORT_MS, &fd, &timed_out, peak_kib);
		pmi_said_ends(o);
		pmi_child_failed(o, rc, timed_out);
		if (fd >= 0)
			close(fd);
		if (staged[0] && rc == PM_R_WRITTEN) {
			char what[256];
			if (!pmi_staging_land(out, c->ana_uid, pending, what, sizeof what)) {
				snprintf(o->msg, PM_SAID_MSG, "%.500s: not written: %s", o->dir, what);
				rc = PM_R_NOT_WRITTEN;
			}
		}
		if (staged[0])
			pmi_staging_remove(c->sysdir, staged, out);
	}
	if (root >= 0)
		close(root);
	return rc;
}
