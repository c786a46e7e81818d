/*
 * upload_child.c — a report the handler wrote, delivered at once
 * (docs/system-reporter.md, "Delivery"): postmortem-uploader started for
 * its reports directory as whoever owns that directory — the crashed
 * process's user, or the analysis identity for the private spool it
 * delivers — never as root over another's files, and never waited for.
 *
 * Root finds the uploader beside this handler (root's alone, walked from /
 * without following a link: root_path.c) and opens it O_PATH; everything
 * else is done by a child that takes the directory owner's credentials
 * first (child.c) and holds nothing of root's but that descriptor:
 *   - the process's own destination, from its environment (the snapshot's
 *     bytes, parsed here, never by root), wins over the machine's DSN, as
 *     its pm_install's would; POSTMORTEM_UPLOAD=next-launch starts
 *     nothing; the private spool's are sent to the machine's DSN alone
 *     (their process's environment is a user's, their memory is not);
 *   - the directory's upload lock taken (delivery/upload): another
 *     uploader has it, and takes this report too: nothing is started;
 *   - the uploader started from the descriptor, in a session of its own,
 *     its streams on /dev/null, the lock its only other descriptor
 *     (--lock-fd 3), its environment built here: then the child ends.
 * The handler has closed the core's pipe and let its slot go before: the
 * kernel and the uid's next crash wait for none of this, and root waits
 * for the child alone (START_MS at most), which exits once the uploader is
 * forked.  The uploader inherits the RLIMIT_CORE of 1 the kernel gives the
 * handler: a crash of it is never piped to a handler again (no loop).
 * NOT AS-safe.
 */
#include "handler.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "reports_dir.h"
#include "sandbox.h"
#include "upload_dir.h"

#define UPLOADER "postmortem-uploader"

enum {
	START_MS = 5000,
	ENV_VALUE_MAX = 16384,    /* a longer value (a header) counts as unset */
	LOCK_FD = 3,              /* where the uploader finds the lock (--lock-fd) */
	PROGRAM_FD = 4,
	UP_STARTED = 0,
	UP_NONE = 1,              /* no destination: nothing to say */
	UP_BUSY = 2,
	UP_FAILED = 3,
};

/* Where root looks for the uploader: beside the handler (an installed
 * libexecdir, a root's copy of both), then in the build tree the handler
 * was built in. */
static const char *const near[] = { UPLOADER, "../delivery/uploader/" UPLOADER };

int
pmi_uploader_open(char *why, size_t cap)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash = n > 0 ? memrchr(self, '/', (size_t)n) : NULL;
	if (!slash) {
		snprintf(why, cap, "this handler's own path cannot be read");
		return -1;
	}
	*slash = '\0';
	char first_why[512] = "";
	for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
		char path[PATH_MAX], *at = self;
		const char *rel = near[i];
		size_t len = strlen(self);
		for (; strncmp(rel, "../", 3) == 0; rel += 3) {
			char *up = memrchr(at, '/', len);
			len = up ? (size_t)(up - at) : 0;
		}
		if (snprintf(path, sizeof path, "%.*s/%s", (int)len, self, rel) >= (int)sizeof path)
			continue;
		int fd = pmi_root_path_open(path, PMI_PATH_FILE, why, cap);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			return fd;
		if (fd >= 0) {
			close(fd);
			snprintf(why, cap, "%s is not executable", path);
		}
		if (!first_why[0] || errno != ENOENT)
			snprintf(first_why, sizeof first_why, "%s", why);
	}
	snprintf(why, cap, "%s", first_why);
	return -1;
}

typedef struct env_out {
	char **v;
	size_t n;
} env_out;

static void
put(env_out *e, const char *name, const char *value)
{
	char *s = NULL;
	if (value && *value && asprintf(&s, "%s=%s", name, value) > 0)
		e->v[e->n++] = s;
}

/* The process's value of each of names, as it had it. */
static void
put_process(env_out *e, const pm_proc_snapshot *snap, const char *const *names, size_t n, char *buf)
{
	for (size_t i = 0; i < n; i++)
		if (pmi_env_get(snap, names[i], buf, ENV_VALUE_MAX))
			put(e, names[i], buf);
}

typedef struct upload_job {
	const pm_crash *c;
	const char *dir;          /* the reports directory */
	const char *dsn;          /* the machine's ("" none) and its environment */
	const char *environment;
	bool own;                 /* the process's environment may name its destination: a user's report */
	int program;              /* the uploader, O_PATH */
	pm_said *out;
} upload_job;

/* The uploader's environment: the process's destination or the machine's; false when none. */
static bool
environment(const upload_job *j, env_out *e)
{
	const pm_proc_snapshot *snap = &j->c->snap;
	char *buf = malloc(ENV_VALUE_MAX);
	bool own = false;
	if (!buf)
		return false;
	if (j->own && pmi_env_get(snap, PMI_UPLOAD_WHEN_VAR, buf, ENV_VALUE_MAX) &&
	    strcmp(buf, PMI_UPLOAD_NEXT_LAUNCH) == 0) {
		snprintf(j->out->msg, PM_SAID_MSG, "not sent now: its " PMI_UPLOAD_WHEN_VAR "=" PMI_UPLOAD_NEXT_LAUNCH);
		free(buf);
		return false;
	}
	if (j->own && (pmi_env_get(snap, "POSTMORTEM_DSN", buf, ENV_VALUE_MAX) ||
	               pmi_env_get(snap, "POSTMORTEM_UPLOAD_URL", buf, ENV_VALUE_MAX))) {
		own = true;
		put_process(e, snap, pmi_upload_destination_vars, PMI_UPLOAD_DESTINATION_VARS, buf);
	} else if (j->dsn[0]) {
		put(e, "POSTMORTEM_DSN", j->dsn);
		put(e, "POSTMORTEM_ENVIRONMENT", j->environment);
	}
	if (j->own)
		put_process(e, snap, pmi_upload_passed_vars, PMI_UPLOAD_PASSED_VARS, buf);
	free(buf);
	snprintf(j->out->dir, sizeof j->out->dir, "%s", own ? "its own destination" : "the machine's DSN");
	return e->n > 0;
}

/* In the grandchild: the uploader, detached.  Never returns. */
static void
exec_uploader(const upload_job *j, int lock, char **envp)
{
	char pid[24];
	snprintf(pid, sizeof pid, "%d", j->c->a.pid_ns);
	char *argv[] = { UPLOADER, "--dir", (char *)j->dir, "--crashed", pid, "--lock-fd", "3", NULL };
	sigset_t none;
	sigemptyset(&none);
	setsid();
	/* Out of the way first: either may sit on the other's number. */
	lock = fcntl(lock, F_DUPFD_CLOEXEC, PROGRAM_FD + 1);
	int program = fcntl(j->program, F_DUPFD_CLOEXEC, PROGRAM_FD + 1);
	if (lock >= 0 && program >= 0 && dup2(lock, LOCK_FD) == LOCK_FD && dup2(program, PROGRAM_FD) == PROGRAM_FD &&
	    fcntl(PROGRAM_FD, F_SETFD, FD_CLOEXEC) == 0 && close_range(PROGRAM_FD + 1, ~0u, 0) == 0) {
		umask(077);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &none, NULL);
		syscall(SYS_execveat, PROGRAM_FD, "", argv, envp, AT_EMPTY_PATH);
	}
	_exit(127);
}

/* In the child, as the directory's owner: the uploader started, or why not. */
static int
start(void *arg, int sock)
{
	upload_job *j = arg;
	pm_said *o = j->out;
	int keep[] = { j->program, sock };
	if (!pmi_sandbox_fds(keep, 2))
		return UP_FAILED;
	prctl(PR_SET_NAME, "pm-upload-start", 0, 0, 0);
	env_out e = { calloc(PMI_UPLOAD_DESTINATION_VARS + PMI_UPLOAD_PASSED_VARS + 2, sizeof(char *)), 0 };
	if (!e.v || !environment(j, &e))
		return o->msg[0] ? UP_FAILED : UP_NONE;
	char why[256];
	int root = pmi_private_dir_open(AT_FDCWD, j->dir, true, why, sizeof why);
	if (root < 0) {
		snprintf(o->msg, PM_SAID_MSG, "not sent now: %s", why);
		return UP_FAILED;
	}
	bool busy;
	int lock = pmi_upload_lock_for_start(root, &busy);
	if (lock < 0) {
		snprintf(o->msg, PM_SAID_MSG, "%s", busy ? "sent by the uploader that has its directory already"
		                                         : "not sent now: its directory's upload lock cannot be had");
		return busy ? UP_BUSY : UP_FAILED;
	}
	pid_t pid = fork();
	if (pid == 0)
		exec_uploader(j, lock, e.v);
	if (pid < 0) {
		snprintf(o->msg, PM_SAID_MSG, "not sent now: the uploader cannot be started: %s", strerror(errno));
		return UP_FAILED;
	}
	snprintf(o->msg, PM_SAID_MSG, "uploader %d started as uid %u, to %.200s", (int)pid, (unsigned)getuid(), o->dir);
	return UP_STARTED;
}

void
pmi_upload_start(pm_crash *c, const pm_system_state *st, const pm_said *report, pm_analysis_as as, char *said,
                 size_t cap)
{
	said[0] = '\0';
	bool machine = st && st->dsn[0];
	if (as == PM_ANALYSIS_AS_STAGED) {
		/* Root keeps it, and parses none of it: an uploader as root would. */
		if (machine)
			snprintf(said, cap, "not sent: root keeps it (`system enable --upload-private` sends such reports)");
		return;
	}
	if (!report->reports[0] || report->reports[0] != '/')
		return;
	char why[512];
	int program = pmi_uploader_open(why, sizeof why);
	if (program < 0) {
		snprintf(said, cap, "not sent now: no uploader beside the handler (%.400s)", why);
		return;
	}
	pm_said *o = mmap(NULL, sizeof *o, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (o == MAP_FAILED) {
		close(program);
		return;
	}
	memset(o, 0, sizeof *o);
	bool own = as == PM_ANALYSIS_AS_USER;
	upload_job j = { c, report->reports, st ? st->dsn : "", st ? st->environment : "", own, program, o };
	pm_creds user = pmi_dest_creds(&c->f), identity = { c->ana_uid, c->ana_gid, NULL, 0 };
	int fd;
	bool timed_out;
	int rc = pmi_child_run(own ? &user : &identity, start, &j, START_MS, &fd, &timed_out, NULL);
	if (fd >= 0)
		close(fd);
	close(program);
	pmi_said_ends(o);
	if (rc == UP_STARTED || rc == UP_BUSY || (rc == UP_FAILED && o->msg[0]))
		snprintf(said, cap, "%s", o->msg);
	else if (rc != UP_NONE)
		snprintf(said, cap, "not sent now: the uploader's start %s", timed_out ? "took too long" : "failed");
	munmap(o, sizeof *o);
}
