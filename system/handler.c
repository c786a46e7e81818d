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
 *   1. the state enable left (state.c); one of the crash's uid's report
 *      slots (slots.c): none free, no report (steps 4 to 6 are skipped);
 *   2. the process pinned: /proc/<pid> opened once, checked against the
 *      pidfd or the start time (proc_pin.c); its ids read through it
 *      (proc_facts.c); the previous handler started (chain.c);
 *   3. what the analysis will need, taken while the kernel holds the
 *      process (it does while this handler keeps the core's pipe open):
 *      the mapped files as O_PATH descriptors (map_files.c), the bytes of
 *      /proc and of the OS's facts files (proc_snapshot.c),
 *      /proc/<pid>/mem; the process checked to be there still;
 *   4. the core read to its notes' end and no further (corefile/), teed to
 *      the previous handler: the rest stays in the pipe, and the process
 *      with it;
 *   5. the report's place: the private spool (root's), or resolved by a
 *      child running as the process's user (dest_child.c), which hands
 *      back the directory's descriptor; a spool at its cap takes none
 *      (spool_caps.c);
 *   6. the analysis — everything that parses the core, the mapped files
 *      and /proc's bytes — in a child sandboxed (analysis_child.c,
 *      sandbox.c): no privilege, an empty root, its own descriptors alone,
 *      Landlock and seccomp; writing as the user into the user's
 *      directory, or as the dedicated identity into a staging directory
 *      root then copies from (staging.c);
 *   7. the rest of the core teed to the previous handler, to the caps;
 *      the previous pipe handler waited for, its process group killed at
 *      its deadline; only then the core's pipe closed (the kernel ends the
 *      dump and lets the process go) and the slot let go;
 *   8. the report delivered at once: postmortem-uploader started by a
 *      child that is the directory's owner, detached (upload_child.c);
 *      one line to the kernel's log.
 * Every step is bounded in time and memory whatever the core's size
 * (docs/system-reporter.md, "Bounds").  NOT AS-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "handler.h"


/* The core's bytes to the previous handler, and their CRC-32, for the log
 * line: a core nothing else gets is not summed (at 1 GB, a third of the
 * handler's time).  False once nothing wants more. */
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
	return pmi_chain_tee(t->chain, buf, n);
}

/* Decide, find the place, and run the analysis: whether a report was
 * written (*as: by whom); *peak_kib, the analysis's peak memory. */
static bool
run_report(pm_crash *c, pm_said *o, pm_analysis_as *as, long *peak_kib)
{
	const char *reason;
	pm_dest_kind kind;
	int pending = pmi_place_find(c, o, &reason, &kind, as);
	bool written = false;
	if (pending >= 0) {
		written = pmi_analysis_run(c, pending, *as, o, peak_kib) == PM_R_WRITTEN;
		close(pending);
	}
	if (reason) {
		size_t at = strlen(o->msg);
		snprintf(o->msg + at, PM_SAID_MSG - at, " (%s, since %s)",
		         *as == PM_ANALYSIS_AS_IDENTITY ? "the private spool the machine delivers"
		         : kind == PM_DEST_PRIVATE      ? "the private spool"
		                                        : "the per-user spool",
		         reason);
	}
	return written;
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
gather(pm_crash *c)
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

/* How the core's stream went, for the log line. */
typedef struct stream_said {
	pm_err err;               /* of the notes */
	char why[512];
	uint64_t notes;           /* bytes read to the notes' end (0: not read, no report was to be made) */
	uint64_t rest;            /* bytes read after them, for the previous handler */
	bool rest_read;           /* the rest was asked for */
	pm_err rest_err;
	char rest_why[256];
} stream_said;

/* "core ..." of the log line. */
static void
say_core(const stream_said *s, const pm_core *core, const core_tee *t, char *out, size_t cap)
{
	uint64_t all = s->notes + s->rest;
	size_t n = 0;
#define SAY(...) (n += n < cap ? (size_t)snprintf(out + n, cap - n, __VA_ARGS__) : 0)
	if (!s->notes && !s->rest_read) {
		SAY("core not read");
		return;
	}
	SAY("core %" PRIu64 " bytes", all);
	if (t->sum)
		SAY(" crc32 %08lx", (unsigned long)t->crc);
	if (!s->notes)
		SAY(" (to the previous handler alone%s%s)", s->rest_err != PM_OK ? ": " : "",
		    s->rest_err != PM_OK ? s->rest_why : "");
	else if (!s->rest_read && core)
		SAY(" (to its notes' end, of %" PRIu64 ": nothing else wants the rest)", core->end);
	else if (core && all < core->end)
		SAY(" (cut: its segments end at %" PRIu64 "%s%s)", core->end, s->rest_err != PM_OK ? "; " : "",
		    s->rest_err != PM_OK ? s->rest_why : "");
	else if (s->rest_err != PM_OK)
		SAY(" (%s)", s->rest_why);
#undef SAY
}

int
main(int argc, char **argv)
{
	pm_crash c = { .mem = -1, .debug_fd = -1, .pin = { .dir = -1, .pidfd = -1 } };
	clock_gettime(CLOCK_REALTIME, &c.started);
	int64_t t0 = pmi_now_ms();
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
	if (!args_ok) {
		/* Nothing can be said of the process, nor the previous handler served: the dump ends now. */
		close(0);
		pmi_syslog(LOG_ERR, "refused: bad arguments (%s); the core is not read", why);
		return 1;
	}
	c.pause = pmi_pauses_read(c.sysdir);
	pm_system_state st;
	pm_err se = pmi_state_read(c.sysdir, &st, why, sizeof why);
	if (se != PM_OK && se != PM_E_NOTFOUND)
		pmi_syslog(LOG_ERR, "refused the state: %s; the previous handler is not served", why);
	c.ana_uid = se == PM_OK && st.analysis_uid ? st.analysis_uid : PM_NOBODY;
	c.ana_gid = se == PM_OK && st.analysis_gid ? st.analysis_gid : PM_NOBODY;
	c.deliver_private = se == PM_OK && st.dsn[0] && st.upload_private;
	/* One of its uid's slots, held until the core's pipe is closed; none free in time: no report. */
	char slot_why[256] = "";
	int64_t slot_wait_ms;
	int slot = pmi_slot_take(c.sysdir, c.a.uid, &slot_wait_ms, slot_why, sizeof slot_why);
	bool report = slot != PM_SLOT_FULL;
	/* Past them, the previous handler is served in one of the machine's few
	 * places for that, or not at all: a user's storm holds no more of the
	 * kernel's core_pipe_limit places than those. */
	int past = report ? PM_SLOT_NONE : pmi_slot_take_past(c.sysdir, slot_why, sizeof slot_why);
	bool serve = report || past != PM_SLOT_FULL;
	pmi_pause(c.pause.proc_ms);
	bool facts_ok = pmi_proc_pin(&c.pin, c.a.pid, c.a.pidfd, why, sizeof why) &&
	                pmi_proc_facts_read(&c.pin, &c.f, why, sizeof why);
	if (!facts_ok)
		pmi_syslog(LOG_ERR, "pid %d: %s; no report", c.a.pid, why);
	pm_chain chain;
	pmi_chain_start(&chain, se == PM_OK && facts_ok && serve ? &st : NULL, &c.a, &c.pin, &c.f);
	if (!serve && se == PM_OK && facts_ok && st.before.pattern[0])
		snprintf(chain.what, sizeof chain.what, "previous pattern not served: %d crashes past their uid's slots "
		         "serve it already", PM_SLOTLESS_AT_ONCE);
	report = report && facts_ok;
	if (report)
		gather(&c);

	/* The notes, and nothing more: the memory comes through /proc/<pid>/mem
	 * while the kernel holds the process (it does while this handler keeps
	 * the core's pipe open, unread), the mapped files through the
	 * descriptors alone (no path the core names is opened). */
	static const pm_core_mapped none[1];
	pm_core_options opt = { .mem_fd = c.mem, .mapped = c.mf.m ? c.mf.m : none, .nmapped = c.mf.n };
	core_tee t = { &chain, chain.pipe_fd >= 0 || chain.file_fd >= 0, crc32(0, NULL, 0) };
	stream_said ss = { .err = PM_E_NOTFOUND };
	if (report)
		ss.err = pmi_core_read_stream_notes(0, &opt, NULL, tee_bytes, &t, &c.core, &ss.notes, ss.why, sizeof ss.why);
	int64_t t_read = pmi_now_ms();
	if (ss.err == PM_OK && c.core->has_siginfo && c.core->siginfo.code <= 0 && c.snap.proc)
		pmi_snapshot_keep_comm(&c.snap, c.core->siginfo.sender_pid);
	pmi_pause(report ? c.pause.core_ms : 0);

	pm_said *o = mmap(NULL, sizeof *o, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long report_kib = 0;
	uint64_t over = 0, dropped = 0;
	bool written = false;
	pm_analysis_as as = PM_ANALYSIS_AS_STAGED;
	if (o == MAP_FAILED)
		o = NULL;
	else
		snprintf(o->msg, PM_SAID_MSG, "no report");
	if (!report && slot == PM_SLOT_FULL && facts_ok && o) {
		over = pmi_slot_count_over(c.sysdir, c.a.uid);
		snprintf(o->msg, PM_SAID_MSG, "no report: uid %u has %d reports under way already%s (its crash number %" PRIu64
		         " over that since its last report)", c.a.uid, PM_SLOTS_PER_UID,
		         slot_wait_ms ? ", none done in time" : " and as many crashes waiting as may", over);
	} else if (report && o) {
		dropped = pmi_slot_take_over(c.sysdir, c.a.uid);
		if (ss.err != PM_OK) {
			pmi_core_close(c.core);
			c.core = NULL;
		}
		written = run_report(&c, o, &as, &report_kib);
	}
	int64_t t_report = pmi_now_ms();

	/* The rest, for the previous handler alone: as long as it takes, to the
	 * caps (a crash over its uid's slots, a short time: the storm it may be
	 * part of must not hold the kernel's slots). */
	int64_t slotless_left = PM_SLOTLESS_MS - (pmi_now_ms() - t0);
	pm_core_stream_limits rest_lim = { .max_ms = report ? 0 : slotless_left > 1 ? (int)slotless_left : 1,
		                           .max_bytes = c.pause.max_bytes };
	if (chain.pipe_fd >= 0 || chain.file_fd >= 0) {
		ss.rest_read = true;
		ss.rest_err = pmi_core_stream_rest(0, ss.notes, &rest_lim, tee_bytes, &t, &ss.rest, ss.rest_why,
		                                   sizeof ss.rest_why);
	}
	pmi_chain_close(&chain);
	int64_t t_rest = pmi_now_ms();
	int deadline = c.pause.previous_ms > 0 ? c.pause.previous_ms : PM_PREVIOUS_MS;
	if (!report) {
		int64_t left = PM_SLOTLESS_MS - (t_rest - t0);
		deadline = left < deadline ? (left > 0 ? (int)left : 0) : deadline;
	}
	pmi_chain_wait(&chain, deadline);
	/* Every reader of /proc/<pid> is done: the kernel may end the dump and
	 * the process, and the next crash of this uid may have the slot. */
	close(0);
	if (slot >= 0)
		close(slot);
	if (past >= 0)
		close(past);
	/* Delivered now, by whoever owns its directory: nothing above waits for it. */
	char sent[PM_SAID_MSG + 8] = "";
	if (written)
		pmi_upload_start(&c, se == PM_OK ? &st : NULL, o, as, sent + 2, sizeof sent - 2);
	if (sent[2])
		memcpy(sent, "; ", 2);
	else
		sent[0] = '\0';

	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	char core_said[512], comm[4 * sizeof c.a.comm], files[160] = "", extra[256] = "", rest_ms[48] = "",
	     threads[32] = "", waited[64] = "";
	if (slot_wait_ms && slot >= 0)
		snprintf(waited, sizeof waited, "; waited %" PRId64 " ms for a slot", slot_wait_ms);
	if (c.core)
		snprintf(threads, sizeof threads, ", %zu threads", c.core->nthreads);
	if (ss.rest_read)
		snprintf(rest_ms, sizeof rest_ms, ", the rest in %" PRId64 " ms", t_rest - t_report);
	say_core(&ss, c.core, &t, core_said, sizeof core_said);
	if (c.mf.left_out || c.snap.cut || (c.ana_uid == PM_NOBODY && facts_ok))
		snprintf(files, sizeof files, "%s%s%s", c.mf.left_out ? "; some mapped files left out (fewer symbols)" : "",
		         c.snap.cut ? "; its /proc was cut short" : "",
		         c.ana_uid == PM_NOBODY ? "; the analysis ran as 65534 (enable recorded no identity)" : "");
	if (dropped)
		snprintf(extra, sizeof extra, "; %" PRIu64 " crashes of uid %u not reported since its last report (over its "
		         "%d at once)", dropped, c.a.uid, PM_SLOTS_PER_UID);
	else if (slot == PM_SLOT_NONE)
		snprintf(extra, sizeof extra, "; no slot counted it: %s", slot_why);
	pmi_log_escape(c.a.comm, comm, sizeof comm);
	pmi_syslog(ss.err == PM_OK || !report ? LOG_INFO : LOG_WARNING,
	           "pid %d (%s) uid %u signal %d: %s%s%s%s; report: %s%s%s%s; %s%s; read in %" PRId64
	           " ms, reported in %" PRId64 " ms%s; peak rss %ld KiB, the report's %ld KiB",
	           c.a.pid, comm, c.a.uid, c.a.signal, core_said, threads,
	           ss.err == PM_OK || !report ? "" : ", unreadable: ", ss.err == PM_OK || !report ? "" : ss.why,
	           o ? o->msg : "no report", sent, extra, waited, chain.what, files, t_read - t0, t_report - t_read, rest_ms,
	           ru.ru_maxrss, report_kib);
	/* A dump the kernel goes on with (a walk of a huge mapping it never
	 * writes) still counts against core_pipe_limit: ended past its grace,
	 * once the line is said (the process's end is not the report's time). */
	if (pmi_proc_dump_end(&c.pin, PM_DUMP_END_MS))
		pmi_syslog(LOG_WARNING, "pid %d: its dump went on %d ms after the handler was done: ended (SIGKILL)", c.a.pid,
		           PM_DUMP_END_MS);
	pmi_core_close(c.core);
	pmi_snapshot_free(&c.snap);
	pmi_map_files_close(&c.mf);
	pmi_proc_unpin(&c.pin);
	return facts_ok ? 0 : 1;
}
