/*
 * uploader.c — postmortem-uploader, which the crash handler starts once a
 * report is durable (reporter/handler/as_upload_now.c), so that the report
 * reaches its destination without a next launch (docs/upload.md, "At the
 * crash").  One reports directory, bounded in time:
 *
 *   postmortem-uploader --dir DIR [--crashed PID] [--lock-fd N | --wait-for-lock] [--waited]
 *
 * The destination comes from the environment the handler prepared at
 * pm_install (never argv, which any user may read in /proc): POSTMORTEM_DSN
 * or POSTMORTEM_UPLOAD_URL, POSTMORTEM_UPLOAD_HEADER (one header a line),
 * POSTMORTEM_UPLOAD_CA_FILE, POSTMORTEM_UPLOAD_ALLOW_HTTP=1,
 * POSTMORTEM_UPLOAD_INSECURE=1, POSTMORTEM_UPLOAD_NO_GZIP=1,
 * POSTMORTEM_UPLOAD_FINGERPRINT_SIGNATURE=1, POSTMORTEM_ENVIRONMENT; and
 * POSTMORTEM_STORM_KEEP for its store's storm control (docs/store.md).
 *
 *   1. Its lines go to DIR/upload.log: the dying process's streams are not
 *      its to write to (the handler gave it /dev/null).
 *   2. With --crashed it waits, at most RUN_WAIT_MS, for the crashed run
 *      to end (its record in the runs file let go: the process gone, or
 *      `postmortem run` done with it), so that the run's session, which
 *      can only be collected then, goes in the crash's envelope.  Not with
 *      --waited: then the crashed process waits for us (its end would end
 *      us: the init of its pid namespace, or a container's init's child).
 *   3. It delivers as the directory's one uploader (upload_dir.h), with
 *      the lock the handler took (descriptor N) or one taken here: when
 *      another uploader has the directory, that one takes these reports.
 *      With --wait-for-lock it waits for it (within its time): the crashed
 *      process's own upload thread held it, and lets it go as it ends.
 *      What it cannot deliver stays pending for the next launch, the next
 *      crash or `postmortem upload`.
 *
 * It installs no crash handler of its own: a crash of it must not start
 * another.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reports_dir.h"
#include "sessions.h"
#include "upload_dir.h"

enum {
	DEADLINE_MS = 60000,          /* everything, from its start */
	WAITED_DEADLINE_MS = 8000,    /* under AS_UPLOAD_WAIT_MS, the crashed process's patience */
	RUN_WAIT_MS = 5000,           /* for the crashed run's record to be let go */
	RUN_POLL_MS = 5,
	LOG_MAX = 256 * 1024,         /* then upload.log becomes upload.log.1 */
	EXIT_KEPT = 1,                /* something stays pending (or nothing could be tried) */
	EXIT_USAGE = 2,
};

#define LOG_NAME "upload.log"

typedef struct args {
	const char *dir;
	long crashed;                 /* 0: none */
	int lock_fd;                  /* -1: none */
	bool wait_for_lock;
	bool waited;
} args;

static void
say(const char *fmt, ...)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	fprintf(stderr, "%s postmortem-uploader[%ld]: ", when, (long)getpid());
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool
parse(int argc, char **argv, args *a)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "crashed", required_argument, NULL, 'c' },
		{ "lock-fd", required_argument, NULL, 'l' },
		{ "wait-for-lock", no_argument, NULL, 'L' },
		{ "waited", no_argument, NULL, 'w' },
		{ 0 },
	};
	*a = (args){ .lock_fd = -1 };
	for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		char *end = NULL;
		switch (c) {
		case 'd': a->dir = optarg; break;
		case 'c': a->crashed = strtol(optarg, &end, 10); break;
		case 'l': a->lock_fd = (int)strtol(optarg, &end, 10); break;
		case 'L': a->wait_for_lock = true; break;
		case 'w': a->waited = true; break;
		default: return false;
		}
		if (end && (*end || end == optarg))
			return false;
	}
	return a->dir && *a->dir == '/' && optind == argc && a->crashed >= 0;
}

/* What the dying process left it: signals blocked or ignored, streams that may be closed. */
static void
settle_process(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, sig == SIGPIPE ? &ign : &dfl, NULL);
	while (fcntl(2, F_GETFD) < 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd < 0 || fd > 2)
			break;
	}
	umask(077);
}

/* Standard error into DIR/upload.log (kept under LOG_MAX: the older half goes to upload.log.1). */
static void
open_log(int root)
{
	struct stat st;
	if (fstatat(root, LOG_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_size > LOG_MAX)
		renameat(root, LOG_NAME, root, LOG_NAME ".1");
	int fd = openat(root, LOG_NAME, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* The crashed run's record let go, or RUN_WAIT_MS passed. */
static void
wait_for_run(int root, long pid)
{
	for (int waited = 0; pmi_runs_held_by(root, pid); waited += RUN_POLL_MS) {
		if (waited >= RUN_WAIT_MS) {
			say("the run of pid %ld has not ended after %d ms: its session waits for a later pass", pid,
			    RUN_WAIT_MS);
			return;
		}
		struct timespec ts = { 0, RUN_POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
}

static bool
flag(const char *name)
{
	const char *v = getenv(name);
	return v && strcmp(v, "1") == 0;
}

static const char *
env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* The destination from the environment; headers point into *header_text (malloc'd). */
static void
options_from_env(pm_upload_options *o, const char **headers, size_t cap, char **header_text, bool waited)
{
	*o = (pm_upload_options){
		.dsn = env("POSTMORTEM_DSN"),
		.ca_file = env("POSTMORTEM_UPLOAD_CA_FILE"),
		.allow_http = flag("POSTMORTEM_UPLOAD_ALLOW_HTTP"),
		.insecure_tls = flag("POSTMORTEM_UPLOAD_INSECURE"),
		.no_gzip = flag("POSTMORTEM_UPLOAD_NO_GZIP"),
		.fingerprint_signature = flag("POSTMORTEM_UPLOAD_FINGERPRINT_SIGNATURE"),
		.headers = headers,
	};
	o->url = o->dsn ? NULL : env("POSTMORTEM_UPLOAD_URL");
	if (waited) {
		o->connect_timeout_ms = 2000;
		o->timeout_ms = 5000;
	}
	const char *h = env("POSTMORTEM_UPLOAD_HEADER");
	*header_text = h ? strdup(h) : NULL;
	for (char *line = *header_text, *next; line && o->header_count < cap; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line)
			headers[o->header_count++] = line;
	}
}

int
main(int argc, char **argv)
{
	args a;
	settle_process();
	if (!parse(argc, argv, &a)) {
		fprintf(stderr, "usage: postmortem-uploader --dir DIR [--crashed PID] [--lock-fd N | --wait-for-lock] [--waited]\n"
		                "(started by libpostmortem's crash handler: docs/upload.md)\n");
		return EXIT_USAGE;
	}
	char why[256];
	int root = pmi_private_dir_open(AT_FDCWD, a.dir, true, why, sizeof why);
	if (root < 0) {
		fprintf(stderr, "postmortem-uploader: refusing the reports directory %s: %s\n", a.dir, why);
		return EXIT_KEPT;
	}
	open_log(root);
	if (a.crashed)
		say("start: the crash of pid %ld%s", a.crashed, a.waited ? " (which waits for this uploader)" : "");
	else
		say("start");
	enum { HEADERS_MAX = 64 };
	const char *headers[HEADERS_MAX];
	char *header_text;
	pm_upload_options opt;
	options_from_env(&opt, headers, HEADERS_MAX, &header_text, a.waited);
	if (!opt.dsn && !opt.url) {
		say("end: no destination (POSTMORTEM_DSN or POSTMORTEM_UPLOAD_URL): the reports stay pending");
		return EXIT_KEPT;
	}
	/* Sessions go to Sentry alone. */
	if (a.crashed && !a.waited && opt.dsn)
		wait_for_run(root, a.crashed);
	upload_dir_run run = {
		.dir = a.dir, .opt = &opt, .lock_fd = a.lock_fd, .wait_for_lock = a.wait_for_lock,
		.deadline_ms = a.waited ? WAITED_DEADLINE_MS : DEADLINE_MS,
	};
	pm_upload_result res;
	upload_dir_result out;
	pm_err e = pmi_upload_dir(&run, &res, &out);
	free(header_text);
	close(root);
	if (e == PM_E_INVAL) {
		say("end: the destination, or a header, was refused (the line above says why): the reports stay pending");
		return EXIT_KEPT;
	}
	if (e != PM_OK && e != PM_E_NOTFOUND) {
		say("end: stopped: %s; the reports stay pending", pm_strerror(e));
		return EXIT_KEPT;
	}
	if (out.busy) {
		say("end: another uploader has this directory, and takes its reports");
		return 0;
	}
	say("end: sent %u, kept %u, quarantined %u; sessions sent %u, kept %u", res.sent, res.kept, res.quarantined,
	    res.sessions_sent, res.sessions_kept);
	return res.kept || res.sessions_kept ? EXIT_KEPT : 0;
}
