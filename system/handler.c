/*
 * handler.c — postmortem-core-handler, the program kernel.core_pattern runs
 * for every crash once `postmortem system enable` has pointed it here:
 *
 *   |<libexecdir>/postmortem/postmortem-core-handler [-d DIR] %P %p %I %i %u %g %s %t %d %c %h %e %E
 *
 * It runs as root, with the core on standard input and nothing else: no
 * environment, no other descriptor, no terminal.  In order:
 *   1. /proc/<pid>'s facts, as root (proc_facts.c), and the state enable
 *      left (state.c): the previous pattern;
 *   2. the previous handler started (chain.c);
 *   3. the core read once to its end (corefile/), every byte teed to the
 *      previous handler, the ranges a report needs kept;
 *   4. the report's place decided (destination.c) and the report written
 *      there in a child, as the process's user unless it goes to the
 *      private spool (core_report.h: the engine's part);
 *   5. the previous pipe handler waited for; one line to the kernel's log.
 * Every step is bounded in time and memory whatever the core's size
 * (docs/system-reporter.md, "Bounds").  NOT AS-safe.
 */
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
#include <unistd.h>
#include <zlib.h>

#include "chain.h"
#include "destination.h"
#include "reports_dir.h"
#include "store.h"

enum {
	REPORT_MS = 120000,       /* the report's child, engine included */
	R_WRITTEN = 0,
	R_ALREADY = 10,           /* the process reported itself */
	R_SPOOL = 11,             /* no home: the per-uid spool */
	R_REFUSED = 12,           /* the directory cannot be used */
	R_NOT_WRITTEN = 13,
	MSG = 1024,
};

typedef struct core_tee {
	pm_chain *chain;
	uLong crc;
} core_tee;

static bool
tee_bytes(void *ctx, const void *buf, size_t n)
{
	core_tee *t = ctx;
	t->crc = crc32(t->crc, buf, (uInt)n);
	pmi_chain_tee(t->chain, buf, n);
	return true;
}

typedef struct report_job {
	const pm_crash_args *a;
	const pm_proc_facts *f;
	pm_core *core;
	int maps_fd;
	pm_dest_kind kind;
	const char *dir;          /* a spool's; NULL: resolved as the user */
	char *msg;                /* MSG bytes shared with the handler */
} report_job;

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

/* In a child: as the process's user (or root for the private spool). */
static int
report(void *arg, int sock)
{
	(void)sock;
	report_job *j = arg;
	char dir[PATH_MAX], why[512];
	pm_dest_kind kind = j->kind;
	int pending = -1;
	if (j->dir)
		snprintf(dir, sizeof dir, "%s", j->dir);
	else if ((pending = pmi_dest_app_pending(j->a->pid, j->f)) >= 0) {
		kind = PM_DEST_APP;
		snprintf(dir, sizeof dir, "the pending/ of its pm_install");
	} else if ((kind = pmi_dest_resolve(j->a->pid, j->f, dir, sizeof dir)) == PM_DEST_SPOOL)
		return R_SPOOL;
	else if (kind == PM_DEST_NONE) {
		snprintf(j->msg, MSG, "refused: its reports directory cannot be resolved");
		return R_REFUSED;
	}
	if (pending < 0 && (pending = open_pending(dir, j->msg)) < 0)
		return R_REFUSED;
	char id[256];
	if (pmi_dest_has_report(pending, j->a->pid_ns, j->f->start_time, id, sizeof id)) {
		snprintf(j->msg, MSG, "reported in-process already (%s in %.700s): nothing added", id, dir);
		return R_ALREADY;
	}
	pm_core_target t = { j->core, j->a, j->f, j->maps_fd, kind, dir };
	pm_err e = pmi_core_report(&t, pending, why, sizeof why);
	snprintf(j->msg, MSG, "%.500s: %.500s", dir, why);
	return e == PM_OK ? R_WRITTEN : R_NOT_WRITTEN;
}

/* Decide, make the spool if needed, and run the report's child. */
static void
run_report(report_job *j, const char *sysdir, const char *reason)
{
	char spool[PATH_MAX], why[512];
	pm_creds user = pmi_dest_creds(j->f);
	for (int round = 0; round < 2; round++) {
		if (j->kind != PM_DEST_OWN) {
			if (!pmi_dest_spool(sysdir, j->kind, j->f, spool, sizeof spool, why, sizeof why)) {
				snprintf(j->msg, MSG, "refused: %s", why);
				return;
			}
			j->dir = spool;
		}
		int fd;
		bool timed_out;
		int rc = pmi_child_run(j->kind == PM_DEST_PRIVATE ? NULL : &user, report, j, REPORT_MS, &fd, &timed_out);
		if (fd >= 0)
			close(fd);
		if (rc == R_SPOOL && j->kind == PM_DEST_OWN) {
			j->kind = PM_DEST_SPOOL;
			reason = "it has no home of its own";
			continue;
		}
		if (rc < 0 || rc == 125)
			snprintf(j->msg, MSG, "%s", timed_out ? "refused: the report took longer than its limit"
			                            : rc == 125 ? "refused: cannot take the process's credentials"
			                                        : "the report's child died");
		break;
	}
	if (reason) {
		size_t at = strlen(j->msg);
		snprintf(j->msg + at, MSG - at, " (%s, since %s)",
		         j->kind == PM_DEST_PRIVATE ? "the private spool" : "the per-user spool", reason);
	}
}

int
main(int argc, char **argv)
{
	prctl(PR_SET_DUMPABLE, 0);
	close_range(3, ~0u, 0);
	pmi_syslog_open();
	signal(SIGPIPE, SIG_IGN);
	umask(077);
	clearenv();
	const char *sysdir = PM_SYSTEM_DIR;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		sysdir = argv[2];
		first = 3;
	}
	char why[512];
	pm_crash_args a;
	memset(&a, 0, sizeof a);
	bool args_ok = pmi_crash_args_parse(argc - first, argv + first, &a, why, sizeof why);
	if (!args_ok)
		pmi_syslog(LOG_ERR, "refused: bad arguments (%s); the core is read and dropped", why);
	pm_proc_facts *f = calloc(1, sizeof *f);
	bool facts_ok = args_ok && f && pmi_proc_facts_read(a.pid, f, why, sizeof why);
	if (args_ok && !facts_ok)
		pmi_syslog(LOG_ERR, "pid %d: %s; no report", a.pid, f ? why : "out of memory");
	pm_system_state st;
	pm_err se = pmi_state_read(sysdir, &st, why, sizeof why);
	if (se != PM_OK && se != PM_E_NOTFOUND)
		pmi_syslog(LOG_ERR, "refused the state: %s; the previous handler is not served", why);
	pm_chain chain;
	pmi_chain_start(&chain, se == PM_OK && facts_ok ? &st : NULL, &a, f);

	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", a.pid);
	int mem = facts_ok ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	snprintf(path, sizeof path, "/proc/%d/maps", a.pid);
	int maps = facts_ok ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	pm_core_options opt = { .mem_fd = mem };
	core_tee t = { &chain, crc32(0, NULL, 0) };
	pm_core *core = NULL;
	uint64_t bytes;
	char core_why[512] = "";
	pm_err ce = pmi_core_read_stream(0, &opt, NULL, tee_bytes, &t, &core, &bytes, core_why, sizeof core_why);
	pmi_chain_close(&chain);

	char *msg = mmap(NULL, MSG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (msg == MAP_FAILED)
		msg = NULL;
	if (facts_ok && msg) {
		snprintf(msg, MSG, "no report");
		const char *reason;
		report_job j = { &a, f, ce == PM_OK ? core : NULL, maps, pmi_dest_first(&a, f, &reason), NULL, msg };
		run_report(&j, sysdir, reason);
	}
	pmi_chain_wait(&chain);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long self_kib = ru.ru_maxrss;
	char cut[96] = "";
	if (ce == PM_OK && bytes < core->end)
		snprintf(cut, sizeof cut, " (cut: its segments end at %" PRIu64 ")", core->end);
	if (args_ok)
		pmi_syslog(ce == PM_OK ? LOG_INFO : LOG_WARNING,
		           "pid %d (%s) uid %u signal %d: core %" PRIu64 " bytes%s crc32 %08lx, %zu threads%s%s; report: %s; "
		           "%s; peak rss %ld KiB",
		           a.pid, a.comm, a.uid, a.signal, bytes, cut, (unsigned long)t.crc,
		           ce == PM_OK ? core->nthreads : (size_t)0, ce == PM_OK ? "" : ", unreadable: ", core_why,
		           msg ? msg : "no report", chain.what, self_kib);
	pmi_core_close(core);
	free(f);
	return args_ok && facts_ok ? 0 : 1;
}
