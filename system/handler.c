/*
 * handler.c — postmortem-core-handler, the program kernel.core_pattern runs
 * for every crash once `postmortem system enable` has pointed it here:
 *
 *   |<libexecdir>/postmortem/postmortem-core-handler [-d DIR] %P %p %I %i %u %g %s %t %d %c %h %e %E %F
 *
 * It runs as root, with the core on standard input, the process's pidfd
 * (%F, Linux 6.16) and nothing else: no environment, no terminal.  Root
 * here reads the kernel's facts and opens descriptors; it parses nothing
 * the process wrote (docs/system-reporter.md, "What runs as whom").  In
 * order:
 *   1. the process pinned: /proc/<pid> opened once, checked against the
 *      pidfd or the start time (proc_pin.c); its ids read through it
 *      (proc_facts.c); the state enable left (state.c);
 *   2. the previous handler started (chain.c);
 *   3. what the analysis will need, taken while the kernel holds the
 *      process (it does while this handler keeps the core's pipe open):
 *      the mapped files as O_PATH descriptors (map_files.c), the bytes of
 *      /proc and of the OS's facts files (proc_snapshot.c),
 *      /proc/<pid>/mem; the process checked to be there still;
 *   4. the core read once to its end (corefile/), every byte teed to the
 *      previous handler, the ranges a report needs kept;
 *   5. the report's place: the private spool (root's), or resolved by a
 *      child running as the process's user (destination.c), which hands
 *      back the directory's descriptor;
 *   6. the analysis — everything that parses the core, the mapped files
 *      and /proc's bytes — in a child sandboxed (sandbox.c): no privilege,
 *      an empty root, its own descriptors alone, Landlock and seccomp;
 *      writing as the user into the user's directory, or as the dedicated
 *      identity into a staging directory root then copies from
 *      (staging.c);
 *   7. the previous pipe handler waited for; one line to the kernel's log.
 * Every step is bounded in time and memory whatever the core's size
 * (docs/system-reporter.md, "Bounds").  NOT AS-safe.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "chain.h"
#include "destination.h"
#include "map_files.h"
#include "reports_dir.h"
#include "sandbox.h"
#include "staging.h"
#include "store.h"

enum {
	DEST_MS = 30000,          /* the child that finds the report's place, as the user */
	REPORT_MS = 120000,       /* the analysis child, engine included */
	R_WRITTEN = 0,
	R_ALREADY = 10,           /* the process reported itself */
	R_SPOOL = 11,             /* no home: the per-uid spool */
	R_REFUSED = 12,           /* the directory cannot be used */
	R_NOT_WRITTEN = 13,
	R_SANDBOX = 14,           /* the analysis could not be sealed: nothing ran */
	MSG = 1024,
	NOBODY = 65534,           /* the analysis's identity when enable recorded none */
};

static int64_t
ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The CRC-32 of what the previous handler was given, for the log line: a
 * core nothing else gets is not summed (at 1 GB, a third of the handler's
 * time). */
typedef struct core_tee {
	pm_chain *chain;
	bool sum;
	uLong crc;
} core_tee;

static bool
tee_bytes(void *ctx, const void *buf, size_t n)
{
	core_tee *t = ctx;
	if (t->sum)
		t->crc = crc32(t->crc, buf, (uInt)n);
	pmi_chain_tee(t->chain, buf, n);
	return true;
}

/* Pauses the system tests ask for (tests/system/test_core_sandbox.py): the
 * file <sysdir>/test-pause, root's and written by root alone, lines of
 * "<step> <ms>".  The kernel gives the handler no environment to say it in. */
typedef struct pauses {
	int proc_ms;              /* before /proc/<pid> is pinned */
	int core_ms;              /* after the core is read, before the report */
	int destination_ms;       /* in the child that finds the report's place, as the user */
	int analysis_ms;          /* in the analysis child, sealed, before the engine */
} pauses;

static pauses
read_pauses(const char *sysdir)
{
	pauses p = { 0 };
	char path[PATH_MAX], buf[256];
	snprintf(path, sizeof path, "%s/test-pause", sysdir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return p;
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022)
	                    ? read(fd, buf, sizeof buf - 1)
	                    : -1;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		int ms;
		if (sscanf(line, "proc %d", &ms) == 1)
			p.proc_ms = ms;
		else if (sscanf(line, "core %d", &ms) == 1)
			p.core_ms = ms;
		else if (sscanf(line, "destination %d", &ms) == 1)
			p.destination_ms = ms;
		else if (sscanf(line, "analysis %d", &ms) == 1)
			p.analysis_ms = ms;
	}
	return p;
}

static void
pause_ms(int ms)
{
	if (ms > 0)
		nanosleep(&(struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000 }, NULL);
}

/* What root gathered of one crash, for its children. */
typedef struct crash {
	pm_crash_args a;
	pm_proc pin;
	pm_proc_facts f;
	pm_proc_snapshot snap;
	pm_map_files mf;
	int mem;                  /* /proc/<pid>/mem, or -1 */
	int debug_fd;             /* /usr/lib/debug, or -1 */
	pm_core *core;
	const char *sysdir;
	uid_t ana_uid;            /* the analysis's own identity */
	gid_t ana_gid;
	pauses pause;
	struct timespec started;  /* the crash's time, as near as the handler knows it */
} crash;

/* What a child says back, in memory it shares with the handler. */
typedef struct said {
	char msg[MSG];
	char dir[PATH_MAX];       /* the reports directory found */
	pm_dest_kind kind;
} said;

/* dir's pending/ (the reports directory made as pm_install makes it); -1 with msg set. */
static int
open_pending(const char *dir, char *msg)
{
	char why[256] = "";
	int root = pmi_mkdirs(dir) == 0 ? pmi_private_dir_open(AT_FDCWD, dir, true, why, sizeof why) : -1;
	if (root < 0 && !why[0])
		snprintf(why, sizeof why, "%s", strerror(errno));
	int pending = root >= 0 ? pmi_store_open_subdir(root, "pending", why, sizeof why) : -1;
	if (root >= 0)
		close(root);
	if (pending < 0)
		snprintf(msg, MSG, "refused %.700s: %s", dir, why);
	return pending;
}

typedef struct dest_job {
	const crash *c;
	const char *spool;        /* the per-user spool's directory, or NULL: resolve it */
	said *out;
} dest_job;

/* In a child, as the process's user: where its report goes, pending/ opened
 * and handed back; whether it reported itself already.  A user's: real and
 * saved ids the analysis identity's, so that the user cannot stop it and
 * hold the kernel's slot (a process of root's: root's, as pmi_child_run
 * made it). */
static int
destination(void *arg, int sock)
{
	dest_job *j = arg;
	const crash *c = j->c;
	said *o = j->out;
	int keep[] = { c->pin.dir, sock };
	if (!pmi_sandbox_fds(keep, 2))
		return R_REFUSED;
	pm_sandbox_ids ids = { c->ana_uid, c->f.uid[0], c->ana_gid, c->f.gid[0], c->f.groups, c->f.ngroups };
	if (c->f.uid[0] != 0 && (!pmi_sandbox_become(&ids) || !pmi_sandbox_no_reach()))
		return 125;
	prctl(PR_SET_NAME, "pm-destination", 0, 0, 0);
	pause_ms(c->pause.destination_ms);
	pm_env_facts env;
	pmi_env_facts(&c->snap, c->a.pid, &env);
	int pending = -1;
	if (j->spool)
		snprintf(o->dir, sizeof o->dir, "%s", j->spool);
	else if ((pending = pmi_dest_app_pending(c->pin.dir, &env)) >= 0) {
		o->kind = PM_DEST_APP;
		snprintf(o->dir, sizeof o->dir, "the pending/ of its pm_install");
	} else if ((o->kind = pmi_dest_resolve(c->pin.dir, &env, c->f.uid[0], o->dir, sizeof o->dir)) == PM_DEST_SPOOL)
		return R_SPOOL;
	else if (o->kind == PM_DEST_NONE) {
		snprintf(o->msg, MSG, "refused: its reports directory cannot be resolved");
		return R_REFUSED;
	}
	if (pending < 0 && (pending = open_pending(o->dir, o->msg)) < 0)
		return R_REFUSED;
	char id[256];
	if (pmi_dest_has_report(pending, c->a.pid_ns, c->f.start_time, id, sizeof id)) {
		snprintf(o->msg, MSG, "reported in-process already (%s in %.700s): nothing added", id, o->dir);
		return R_ALREADY;
	}
	return pmi_fd_send(sock, pending) ? R_WRITTEN : R_REFUSED;
}

typedef struct analysis_job {
	crash *c;
	int out_fd;               /* where it writes: the user's pending/, or a staging directory */
	int empty_root;
	bool as_user;             /* the user's report: files as the user's */
	said *out;
} analysis_job;

/* In a child of root's: sealed (sandbox.h), then the engine over the core. */
static int
analysis(void *arg, int sock)
{
	(void)sock;
	analysis_job *j = arg;
	crash *c = j->c;
	said *o = j->out;
	/* Opened while root and outside the new root: how each mapped file is opened for reading. */
	int self_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t nkeep = 0, cap = c->mf.nfiles + 8;
	int *keep = malloc(cap * sizeof *keep);
	if (!keep)
		return R_SANDBOX;
	const int fixed[] = { j->out_fd, c->mem, c->debug_fd, self_fd, j->empty_root };
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		keep[nkeep++] = fixed[i];
	for (size_t i = 0; i < c->mf.nfiles; i++)
		keep[nkeep++] = c->mf.files[i].fd;
	bool fds = pmi_sandbox_fds(keep, nkeep);
	free(keep);
	prctl(PR_SET_NAME, "pm-analysis", 0, 0, 0);
	if (!fds || !pmi_sandbox_chroot(j->empty_root)) {
		snprintf(o->msg, MSG, "not written: the analysis cannot be shut in an empty root: %s", strerror(errno));
		return R_SANDBOX;
	}
	close(j->empty_root);
	/* A report root keeps reads what the process mapped as root would; the
	 * user's, what that user may read. */
	if (!j->as_user)
		pmi_map_files_reopen(&c->mf, self_fd, 0 /* /dev/null's (pmi_sandbox_fds) */);
	pm_sandbox_ids ids = { c->ana_uid, c->ana_uid, c->ana_gid, c->ana_gid, NULL, 0 };
	if (j->as_user)
		ids = (pm_sandbox_ids){ c->ana_uid, c->f.uid[0], c->ana_gid, c->f.gid[0], c->f.groups, c->f.ngroups };
	if (!pmi_sandbox_become(&ids)) {
		snprintf(o->msg, MSG, "not written: the analysis cannot take its identity: %s", strerror(errno));
		return R_SANDBOX;
	}
	if (j->as_user)
		pmi_map_files_reopen(&c->mf, self_fd, 0);
	close(self_fd);
	char why[512];
	pm_sandbox_seal seal;
	if (!pmi_sandbox_seal(j->out_fd, c->debug_fd, &seal, why, sizeof why)) {
		snprintf(o->msg, MSG, "not written: %s", why);
		return R_SANDBOX;
	}
	pause_ms(c->pause.analysis_ms);
	pm_env_facts env;
	pmi_env_facts(&c->snap, c->a.pid, &env);
	pm_core_target t = { c->core, &c->a, &c->f, &c->snap, &env, o->kind, o->dir, c->started, c->debug_fd };
	pm_err e = pmi_core_report(&t, j->out_fd, why, sizeof why);
	snprintf(o->msg, MSG, "%.500s: %.500s", o->dir, why);
	return e == PM_OK ? R_WRITTEN : R_NOT_WRITTEN;
}

/* <sysdir>/empty: the analysis's root, root's, nobody else's to write, empty. */
static int
empty_root(const char *sysdir, char *msg)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/empty", sysdir);
	if (mkdir(path, 0555) != 0 && errno != EEXIST) {
		snprintf(msg, MSG, "not written: cannot make %.700s: %s", path, strerror(errno));
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
		snprintf(msg, MSG, "not written: %.700s is not an empty directory of root's alone", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
child_failed(said *o, int rc, bool timed_out)
{
	if (rc < 0 || rc == 125)
		snprintf(o->msg, MSG, "%s", timed_out ? "refused: the report took longer than its limit"
		                            : rc == 125 ? "refused: cannot take the process's credentials"
		                                        : "the report's child died");
	return rc;
}

/* What a child wrote, as strings however it ended (a child is not trusted to end them). */
static void
said_ends(said *o)
{
	o->msg[MSG - 1] = '\0';
	o->dir[sizeof o->dir - 1] = '\0';
}

/* The place of the report, and its pending/ (-1: none; o->msg says why);
 * *kind: what root asked for (the child's word, o->kind, only names it). */
static int
find_place(crash *c, pm_dest_kind first, said *o, const char **reason, pm_dest_kind *asked)
{
	char spool[PATH_MAX], why[512];
	/* The child says what it found in o->kind; this is what it was asked. */
	pm_dest_kind kind = first;
	for (int round = 0; round < 2; round++) {
		o->kind = *asked = kind;
		if (kind != PM_DEST_OWN && !pmi_dest_spool(c->sysdir, kind, &c->f, spool, sizeof spool, why, sizeof why)) {
			snprintf(o->msg, MSG, "refused: %s", why);
			return -1;
		}
		if (kind == PM_DEST_PRIVATE) {
			/* Root's own: no child, and no report of the process's to look for. */
			snprintf(o->dir, sizeof o->dir, "%s", spool);
			return open_pending(spool, o->msg);
		}
		pm_creds root = pmi_dest_creds(&c->f);
		dest_job j = { c, kind == PM_DEST_SPOOL ? spool : NULL, o };
		int fd;
		bool timed_out;
		int rc = pmi_child_run(c->f.uid[0] == 0 ? &root : NULL, destination, &j, DEST_MS, &fd, &timed_out, NULL);
		said_ends(o);
		if (o->kind != PM_DEST_APP)
			o->kind = kind;
		if (rc == R_SPOOL && kind == PM_DEST_OWN) {
			kind = PM_DEST_SPOOL;
			*reason = "it has no home of its own";
			continue;
		}
		if (rc != R_WRITTEN && fd >= 0) {
			close(fd);
			fd = -1;
		}
		if (rc != R_WRITTEN)
			child_failed(o, rc, timed_out);
		return fd;
	}
	return -1;
}

/* Decide, find the place, and run the analysis; the analysis's peak memory. */
static long
run_report(crash *c, said *o)
{
	const char *reason;
	pm_dest_kind kind;
	int pending = find_place(c, pmi_dest_first(&c->a, &c->f, &reason), o, &reason, &kind);
	long peak_kib = 0;
	if (pending < 0)
		goto said_why;
	/* A report root keeps (the private spool, a process of root's) is made
	 * by the dedicated identity into a staging directory root copies from;
	 * a user's, as that user, straight into the user's directory (which a
	 * child running as the user opened: root writes nothing there). */
	bool as_user = kind != PM_DEST_PRIVATE && c->f.uid[0] != 0;
	char staged[32] = "";
	int out = pending, root = empty_root(c->sysdir, o->msg);
	if (root >= 0 && !as_user)
		out = pmi_staging_make(c->sysdir, c->ana_uid, c->ana_gid, staged, sizeof staged, o->msg, MSG);
	if (root >= 0 && out >= 0) {
		analysis_job j = { c, out, root, as_user, o };
		int fd;
		bool timed_out;
		int rc = pmi_child_run(NULL, analysis, &j, REPORT_MS, &fd, &timed_out, &peak_kib);
		said_ends(o);
		child_failed(o, rc, timed_out);
		if (fd >= 0)
			close(fd);
		if (staged[0] && rc == R_WRITTEN) {
			char what[256];
			if (!pmi_staging_land(out, c->ana_uid, pending, what, sizeof what))
				snprintf(o->msg, MSG, "%.500s: not written: %s", o->dir, what);
		}
		if (staged[0])
			pmi_staging_remove(c->sysdir, staged, out);
	}
	if (root >= 0)
		close(root);
	close(pending);
said_why:
	if (reason) {
		size_t at = strlen(o->msg);
		snprintf(o->msg + at, MSG - at, " (%s, since %s)",
		         kind == PM_DEST_PRIVATE ? "the private spool" : "the per-user spool", reason);
	}
	return peak_kib;
}

/* The descriptors the kernel gave: the core (0) and the pidfd (%F); the rest closed. */
static void
close_inherited(int pidfd)
{
	if (pidfd >= 3 && fcntl(pidfd, F_GETFD) >= 0) {
		close_range(3, (unsigned)pidfd - 1, 0);
		close_range((unsigned)pidfd + 1, ~0u, 0);
		fcntl(pidfd, F_SETFD, FD_CLOEXEC);
	} else
		close_range(3, ~0u, 0);
}

/* /usr/lib/debug, where it is root's alone: the debug files of the images' build ids. */
static int
debug_dir(void)
{
	int fd = open("/usr/lib/debug", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* What root reads of the process while the kernel holds it. */
static void
gather(crash *c)
{
	char why[256];
	if (!pmi_map_files_open(&c->pin, &c->mf, why, sizeof why))
		pmi_syslog(LOG_WARNING, "pid %d: %s; its files are not read", c->a.pid, why);
	pmi_snapshot_take(&c->snap, &c->pin, &c->f, c->a.pid == c->a.pid_ns);
	c->mem = openat(c->pin.dir, "mem", O_RDONLY | O_CLOEXEC);
	c->debug_fd = debug_dir();
	if (!pmi_proc_held(&c->pin)) {
		/* Killed during its dump: what came through the pinned directory was its
		 * own, but may have ended half way. */
		c->snap.proc = false;
		c->snap.cut = true;
	}
}

int
main(int argc, char **argv)
{
	crash c = { .mem = -1, .debug_fd = -1, .pin = { .dir = -1, .pidfd = -1 } };
	clock_gettime(CLOCK_REALTIME, &c.started);
	int64_t t0 = ms_now();
	prctl(PR_SET_DUMPABLE, 0);
	c.sysdir = PM_SYSTEM_DIR;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		c.sysdir = argv[2];
		first = 3;
	}
	char why[512];
	bool args_ok = pmi_crash_args_parse(argc - first, argv + first, &c.a, why, sizeof why);
	close_inherited(args_ok ? c.a.pidfd : -1);
	pmi_syslog_open();
	signal(SIGPIPE, SIG_IGN);
	umask(077);
	clearenv();
	/* /etc/localtime read now, as root: the analysis, in its empty root, converts times with it. */
	tzset();
	if (!args_ok)
		pmi_syslog(LOG_ERR, "refused: bad arguments (%s); the core is read and dropped", why);
	c.pause = read_pauses(c.sysdir);
	pause_ms(args_ok ? c.pause.proc_ms : 0);
	bool facts_ok = args_ok && pmi_proc_pin(&c.pin, c.a.pid, c.a.pidfd, why, sizeof why) &&
	                pmi_proc_facts_read(&c.pin, &c.f, why, sizeof why);
	if (args_ok && !facts_ok)
		pmi_syslog(LOG_ERR, "pid %d: %s; no report", c.a.pid, why);
	pm_system_state st;
	pm_err se = pmi_state_read(c.sysdir, &st, why, sizeof why);
	if (se != PM_OK && se != PM_E_NOTFOUND)
		pmi_syslog(LOG_ERR, "refused the state: %s; the previous handler is not served", why);
	c.ana_uid = se == PM_OK && st.analysis_uid ? st.analysis_uid : NOBODY;
	c.ana_gid = se == PM_OK && st.analysis_gid ? st.analysis_gid : NOBODY;
	pm_chain chain;
	pmi_chain_start(&chain, se == PM_OK && facts_ok ? &st : NULL, &c.a, &c.f);
	if (facts_ok)
		gather(&c);

	/* The mapped files through the descriptors alone: no path the core names is opened. */
	static const pm_core_mapped none[1];
	pm_core_options opt = { .mem_fd = c.mem, .mapped = c.mf.m ? c.mf.m : none, .nmapped = c.mf.n };
	core_tee t = { &chain, chain.pipe_fd >= 0 || chain.file_fd >= 0, crc32(0, NULL, 0) };
	uint64_t bytes;
	char core_why[512] = "";
	pm_err ce = pmi_core_read_stream(0, &opt, NULL, tee_bytes, &t, &c.core, &bytes, core_why, sizeof core_why);
	int64_t t_read = ms_now();
	pmi_chain_close(&chain);
	if (ce == PM_OK && c.core->has_siginfo && c.core->siginfo.code <= 0 && c.snap.proc)
		pmi_snapshot_keep_comm(&c.snap, c.core->siginfo.sender_pid);
	pause_ms(facts_ok ? c.pause.core_ms : 0);

	said *o = mmap(NULL, sizeof *o, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long report_kib = 0;
	if (o == MAP_FAILED)
		o = NULL;
	else
		snprintf(o->msg, MSG, "no report");
	if (facts_ok && o) {
		if (ce != PM_OK) {
			pmi_core_close(c.core);
			c.core = NULL;
		}
		report_kib = run_report(&c, o);
	}
	int64_t t_report = ms_now();
	pmi_chain_wait(&chain);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	char cut[96] = "", sum[32] = "", comm[4 * sizeof c.a.comm], files[160] = "";
	if (ce == PM_OK && c.core && bytes < c.core->end)
		snprintf(cut, sizeof cut, " (cut: its segments end at %" PRIu64 ")", c.core->end);
	if (t.sum)
		snprintf(sum, sizeof sum, " crc32 %08lx", (unsigned long)t.crc);
	if (c.mf.left_out || c.snap.cut || (c.ana_uid == NOBODY && facts_ok))
		snprintf(files, sizeof files, "%s%s%s", c.mf.left_out ? "; some mapped files left out (fewer symbols)" : "",
		         c.snap.cut ? "; its /proc was cut short" : "",
		         c.ana_uid == NOBODY ? "; the analysis ran as 65534 (enable recorded no identity)" : "");
	pmi_log_escape(c.a.comm, comm, sizeof comm);
	if (args_ok)
		pmi_syslog(ce == PM_OK ? LOG_INFO : LOG_WARNING,
		           "pid %d (%s) uid %u signal %d: core %" PRIu64 " bytes%s%s, %zu threads%s%s; report: %s; "
		           "%s%s; read in %" PRId64 " ms, reported in %" PRId64 " ms; peak rss %ld KiB, the report's %ld KiB",
		           c.a.pid, comm, c.a.uid, c.a.signal, bytes, cut, sum,
		           ce == PM_OK ? c.core->nthreads : (size_t)0, ce == PM_OK ? "" : ", unreadable: ", core_why,
		           o ? o->msg : "no report", chain.what, files, t_read - t0, t_report - t_read, ru.ru_maxrss,
		           report_kib);
	pmi_core_close(c.core);
	pmi_snapshot_free(&c.snap);
	pmi_map_files_close(&c.mf);
	pmi_proc_unpin(&c.pin);
	return args_ok && facts_ok ? 0 : 1;
}
