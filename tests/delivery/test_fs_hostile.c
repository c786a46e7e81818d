/*
 * test_fs_hostile.c — files, directories and the CLI under attack (issue 12,
 * docs/fault-matrix.md "Files, directories and the CLI"): each test runs the
 * real CLI or crashes a real program in a hostile file system and checks
 * that nothing blocks, nothing is lost and nothing of ours is destroyed.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "http_server.h"
#include "store_util.h"
#include "util.h"

TestSuite(fs_hostile, .timeout = 120);

/* Run a shell command line with the CLI's path as its first printf argument;
 * returns its exit status, stdout+stderr in *out. */
static int
sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
sh(char **out, const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&cmd, fmt, ap) > 0);
	va_end(ap);
	int st = pm_test_run(cmd, out);
	free(cmd);
	cr_assert(WIFEXITED(st), "the shell did not exit");
	return WEXITSTATUS(st);
}

/* Run a shell line; expect exit status `want` and `needle` in its output. */
static void
expect_sh(int want, const char *needle, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
expect_sh(int want, const char *needle, const char *fmt, ...)
{
	char *cmd, *out;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&cmd, fmt, ap) > 0);
	va_end(ap);
	int rc = sh(&out, "%s", cmd);
	cr_expect_eq(rc, want, "%s: exit %d\n%s", cmd, rc, out);
	cr_expect(strstr(out, needle), "%s: no '%s' in\n%s", cmd, needle, out);
	free(out);
	free(cmd);
}

static const char *
cli_path(void)
{
	return pm_test_build("tools/postmortem");
}

static const char *
sample_twin(void)
{
	return pm_test_source("sample_crashes/reports/sigsegv_null_deref.json");
}

/* Files in dir other than the ones named (a temporary left behind shows up here). */
static int
count_entries(const char *dir)
{
	char *out;
	sh(&out, "ls -A '%s' | wc -l", dir);
	int n = atoi(out);
	free(out);
	return n;
}

/* Item 12: a FIFO named as the report must not block any command. */
Test(fs_hostile, a_fifo_as_input_is_refused_at_once)
{
	char *dir = pm_test_tmpdir(), *out;
	const char *fifo = su_path(dir, ".", "report.crash");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	static const char *const commands[] = { "explain", "convert", "symbolicate" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		/* timeout(1) turns a hang into 124 instead of hanging the test. */
		int rc = sh(&out, "timeout 20 '%s' %s '%s'", cli_path(), commands[i], fifo);
		cr_expect_eq(rc, 1, "%s on a FIFO: exit %d\n%s", commands[i], rc, out);
		cr_expect(strstr(out, "not a regular file (a FIFO)"), "%s: %s", commands[i], out);
		free(out);
	}
	su_rm(dir);
	free(dir);
}

/* Item 4: a write that fails leaves OUT as it was: an existing file keeps its
 * bytes, a device stays a device, and no temporary is left beside it. */
Test(fs_hostile, a_failed_write_never_destroys_the_output)
{
	char *dir = pm_test_tmpdir(), *out;
	char *file = strdup(su_path(dir, ".", "out.crash"));
	su_write(file, "precious\n", 9);
	/* RLIMIT_FSIZE cuts the write short (SIGXFSZ ignored: EFBIG), like a full disk. */
	int rc = sh(&out, "trap '' XFSZ; prlimit --fsize=1000 '%s' convert '%s' -o '%s'", cli_path(),
	            sample_twin(), file);
	cr_expect_eq(rc, 3, "%s", out);
	cr_expect(strstr(out, "cannot write"), "%s", out);
	free(out);
	char *kept = pm_test_slurp(file, NULL);
	cr_expect_str_eq(kept, "precious\n", "OUT lost its content");
	free(kept);
	cr_expect_eq(count_entries(dir), 1, "a temporary was left beside OUT");

	rc = sh(&out, "trap '' XFSZ; prlimit --fsize=1000 '%s' symbolicate '%s' -o '%s'", cli_path(),
	        sample_twin(), file);
	cr_expect_eq(rc, 3, "%s", out);
	free(out);
	kept = pm_test_slurp(file, NULL);
	cr_expect_str_eq(kept, "precious\n");
	free(kept);

	/* A character device that fails every write: /dev/full's numbers, or
	 * /dev/full itself without root (which could not remove it anyway). */
	char *dev = strdup(su_path(dir, ".", "full"));
	if (mknod(dev, S_IFCHR | 0600, makedev(1, 7)) != 0) {
		free(dev);
		dev = strdup("/dev/full");
	}
	expect_sh(3, "No space left", "'%s' convert '%s' -o '%s'", cli_path(), sample_twin(), dev);
	struct stat st;
	cr_expect(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode), "the device was removed");

	/* And a write that works replaces the file whole, keeping its mode. */
	chmod(file, 0640);
	rc = sh(&out, "'%s' convert '%s' -o '%s'", cli_path(), sample_twin(), file);
	cr_expect_eq(rc, 0, "%s", out);
	free(out);
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_expect_eq(pm_read_report_file(file, &r, &err), PM_OK, "%s", err.message);
	pm_report_free(&r);
	cr_expect_eq(su_mode(file), 0640u);
	cr_expect_eq(count_entries(dir), geteuid() == 0 ? 2 : 1);
	free(dev);
	free(file);
	su_rm(dir);
	free(dir);
}

/* Item 5: the disk fills up between the text and its twin, and stays full at
 * the next launch.  The report is text alone, yet it is listed, shown and
 * uploaded (with a twin rebuilt from the text). */
Test(fs_hostile, a_report_whose_twin_could_not_be_written_is_not_lost)
{
	char *dir = pm_test_tmpdir(), *out;
	/* The text of this crash is under 3 KB, its twin over 4 KB: the limit lets only the text through. */
	const char *full = "trap '' XFSZ; prlimit --fsize=3500";
	int rc = sh(&out, "%s '%s' run --dir '%s' -- '%s'", full, cli_path(), dir,
	            crash_sample_path("plain_null_deref"));
	cr_expect_eq(rc, 128 + SIGSEGV, "%s", out);
	free(out);
	cr_assert_eq(count_entries(su_path(dir, "pending", "")), 1, "the text alone should be there");
	char *name;
	sh(&name, "ls '%s'", su_path(dir, "pending", ""));
	cr_assert(strstr(name, ".crash\n"), "%s", name);
	char *id = strndup(name, strlen(name) - strlen(".crash\n"));
	free(name);

	rc = sh(&out, "%s '%s' list --dir '%s'", full, cli_path(), dir);
	cr_expect_eq(rc, 0, "%s", out);
	/* list only looks (salvage is the upload's, below): torn, not lost. */
	cr_expect(strstr(out, id) && strstr(out, "crash_plain_null_deref") && strstr(out, "partial: torn"),
	          "the report must be listed, and say it is torn:\n%s", out);
	free(out);

	rc = sh(&out, "%s '%s' show '%s' --dir '%s'", full, cli_path(), id, dir);
	cr_expect_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "Exception Type:") && strstr(out, "partial"), "%s", out);
	free(out);

	static const http_reply script[] = { { .status = 200 }, { 0 } };
	http_server *srv = http_server_start(script);
	expect_sh(0, "sent 1", "%s '%s' upload --dir '%s' --url '%s' --no-gzip", full, cli_path(), dir,
	          http_server_url(srv));
	cr_assert_eq(http_server_count(srv), 1);
	const http_request *req = http_server_request(srv, 0);
	const http_part *twin = http_request_part(req, "report"), *text = http_request_part(req, "crash");
	cr_assert(twin && text, "both parts must go out");
	char *state = NULL;
	for (size_t i = 0; i < req->part_count; i++)
		if (strcmp(req->parts[i].name, "state") == 0)
			state = strndup(req->parts[i].data, req->parts[i].len);
	cr_expect_str_eq(state ? state : "", "partial");
	free(state);
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_expect_eq(pm_read_json(twin->data, twin->len, &r, &err), PM_OK, "%s", err.message);
	cr_expect_str_eq(r.header.process_name, "crash_plain_null_deref");
	pm_report_free(&r);
	http_server_stop(srv);
	free(id);
	su_rm(dir);
	free(dir);
}

/* A reports directory as another user leaves it for us: theirs, writable by
 * all, a report planted in pending/.  Without root to make one, /tmp is
 * another user's directory too (root's), though nothing can be planted. */
static char *
foreign_dir(bool *planted)
{
	*planted = false;
	if (geteuid() != 0)
		return strdup("/tmp");
	char *dir = su_reports_dir();
	pm_report r;
	su_real_report(&r, NULL, NULL, NULL, NULL);
	su_put(dir, &r, "PLANTED", "victim", 1700000000, 1699999990, 1, true, true);
	pm_report_free(&r);
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	cr_assert_eq(chown(su_path(dir, "pending", ""), 65534, 65534), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(chmod(su_path(dir, "pending", ""), 0777), 0);
	*planted = true;
	return dir;
}

/* Item 3: a crashing program does not write into another user's directory,
 * and says why; list and upload refuse it and never show what was planted. */
Test(fs_hostile, another_users_reports_directory_is_refused)
{
	bool planted;
	char *dir = foreign_dir(&planted), *out;
	int before = planted ? count_entries(su_path(dir, "pending", "")) : 0;
	int rc = sh(&out, "'%s' run --dir '%s' -- '%s'", cli_path(), dir, crash_sample_path("plain_null_deref"));
	cr_expect_eq(rc, 128 + SIGSEGV, "%s", out);
	cr_expect(strstr(out, "cannot keep reports in") && strstr(out, "not by you"), "%s", out);
	free(out);
	if (planted)
		cr_expect_eq(count_entries(su_path(dir, "pending", "")), before, "a report went into their directory");

	rc = sh(&out, "'%s' list --dir '%s'", cli_path(), dir);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "refusing the reports directory") && strstr(out, "not by you"), "%s", out);
	cr_expect(!strstr(out, "PLANTED"), "%s", out);
	free(out);
	expect_sh(1, "refusing the reports directory", "'%s' upload --dir '%s' --url http://127.0.0.1:9/",
	          cli_path(), dir);
	if (planted) {
		cr_expect(su_exists(su_path(dir, "pending", "PLANTED.crash")), "their files are not ours to touch");
		su_rm(dir);
	}
	free(dir);
}

/* Item 3: our own directory left writable by everyone, or reached through
 * another user's symlink, is refused too; a subdirectory of ours only loses
 * its extra bits. */
Test(fs_hostile, a_directory_others_can_write_or_redirect_is_refused)
{
	char *dir = su_reports_dir(), *out;
	cr_assert_eq(chmod(dir, 0777), 0);
	expect_sh(128 + SIGSEGV, "writable by other users (mode 0777)", "'%s' run --dir '%s' -- '%s'", cli_path(),
	          dir, crash_sample_path("plain_null_deref"));
	cr_expect_eq(count_entries(su_path(dir, "pending", "")), 0, "a report went into a world-writable directory");
	expect_sh(1, "writable by other users", "'%s' list --dir '%s'", cli_path(), dir);

	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(chmod(su_path(dir, "pending", ""), 0777), 0);
	int rc = sh(&out, "'%s' run --dir '%s' -- '%s'", cli_path(), dir, crash_sample_path("plain_null_deref"));
	cr_expect_eq(rc, 128 + SIGSEGV, "%s", out);
	free(out);
	cr_expect_eq(su_mode(su_path(dir, "pending", "")), 0700u);
	cr_expect_eq(count_entries(su_path(dir, "pending", "")), 3,
	             "the report of a private directory (.crash, .json, .dmp)");

	if (geteuid() == 0) {
		char *link = strdup(su_path(dir, "..", "pm-link-XXXXXX"));
		cr_assert(mkdtemp(link));
		cr_assert_eq(rmdir(link), 0);
		cr_assert_eq(symlink(dir, link), 0);
		cr_assert_eq(lchown(link, 65534, 65534), 0);
		expect_sh(1, "a symbolic link owned by uid 65534", "'%s' list --dir '%s'", cli_path(), link);
		unlink(link);
		free(link);
	}
	su_rm(dir);
	free(dir);
}

/* True when text holds a byte that a terminal acts on (ESC or BEL here). */
static bool
has_escape(const char *text)
{
	return strchr(text, '\033') || strchr(text, '\007');
}

/* Item 9: a program named with escape sequences crashes; its name is in the
 * report's process, thread and image names.  Nothing of it reaches a
 * terminal raw: not run's summary, explain, or show and convert on a
 * terminal (a pty from script(1)); show into a pipe stays byte-exact. */
Test(fs_hostile, escape_sequences_from_a_report_never_reach_the_terminal)
{
	char *dir = pm_test_tmpdir(), *out, *prog;
	cr_assert(asprintf(&prog, "%s/x\033[31mRED\033]0;T\007", dir) > 0);
	size_t len;
	char *exe = pm_test_slurp(crash_sample_path("plain_null_deref"), &len);
	su_write(prog, exe, len);
	free(exe);
	cr_assert_eq(chmod(prog, 0700), 0);
	const char *reports = su_path(dir, "r", "");

	int rc = sh(&out, "'%s' run --dir '%s' -- '%s'", cli_path(), reports, prog);
	cr_expect_eq(rc, 128 + SIGSEGV, "%s", out);
	cr_expect(strstr(out, "x?[31mRED?]0;T?"), "the name shows, masked:\n%s", out);
	cr_expect(!has_escape(out), "run printed an escape sequence:\n%s", out);
	free(out);

	pm_store *s = su_open(reports, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 1);
	char *id = strdup(pm_store_get(s, PM_STATE_PENDING, 0)->id);
	const char *crash_path;
	cr_assert_eq(pm_store_paths(s, id, &crash_path, NULL), PM_OK);
	char *crash = strdup(crash_path), *stored = pm_test_slurp(crash, NULL);
	pm_store_close(s);
	/* The .crash writes the name's control bytes escaped (docs/text-format.md, "Escapes"); its
	 * reader gives them back, which explain's masked name below shows. */
	cr_assert(strstr(stored, "x\\x1b[31mRED\\x1b]0;T\\x07") && !has_escape(stored),
	          "the report keeps the name, its control bytes escaped");

	cr_expect_eq(sh(&out, "'%s' explain '%s'", cli_path(), crash), 0, "%s", out);
	cr_expect(strstr(out, "x?[31mRED"), "%s", out);
	cr_expect(!has_escape(out), "explain printed an escape sequence:\n%s", out);
	free(out);
	cr_expect_eq(sh(&out, "'%s' explain --json '%s'", cli_path(), crash), 0, "%s", out);
	cr_expect(!has_escape(out), "%s", out);
	free(out);

	const char *const on_tty[] = { "show '%s' --dir '%s'", "convert '%s' --to crash" };
	for (size_t i = 0; i < 2; i++) {
		char args[8192];
		snprintf(args, sizeof args, on_tty[i], i == 0 ? id : crash, reports);
		rc = sh(&out, "script -qec \"'%s' %s\" /dev/null", cli_path(), args);
		cr_expect_eq(rc, 0, "%s: %s", args, out);
		cr_expect(strstr(out, "Exception Type:"), "%s: %s", args, out);
		cr_expect(!has_escape(out), "%s wrote an escape sequence to a terminal:\n%s", args, out);
		free(out);
	}
	cr_expect_eq(sh(&out, "'%s' show '%s' --dir '%s' 2>/dev/null", cli_path(), id, reports), 0);
	cr_expect_str_eq(out, stored, "show into a pipe must stay byte-exact");
	free(out);
	free(stored);
	free(crash);
	free(id);
	free(prog);
	su_rm(dir);
	free(dir);
}

/* Two whole pending reports in a fresh directory (malloc'd path). */
static char *
two_reports(void)
{
	char *dir = su_reports_dir();
	pm_report r;
	su_real_report(&r, NULL, NULL, NULL, NULL);
	su_put(dir, &r, "REPORT-A", "app", 1700000000, 1699999000, 1, true, true);
	su_put(dir, &r, "REPORT-B", "app", 1700000100, 1699999000, 1, true, true);
	pm_report_free(&r);
	return dir;
}

/* Plain HTTP goes to loopback only as written plainly: the shorthands curl
 * rewrites to 127.0.0.1 are refused before any connection, plain forms deliver. */
Test(fs_hostile, loopback_is_what_it_says)
{
	static const http_reply script[] = { { .status = 200 }, { .status = 200 }, { 0 } };
	char *dir = two_reports(), *out;
	http_server *srv = http_server_start(script);
	uint16_t port = http_server_port(srv);
	static const char *const shorthand[] = { "127.1", "0x7f.1", "2130706433", "0177.0.0.1", "0x7f000001" };
	for (size_t i = 0; i < sizeof shorthand / sizeof shorthand[0]; i++) {
		int rc = sh(&out, "'%s' upload --dir '%s' --url 'http://%s:%u/upload'", cli_path(), dir, shorthand[i],
		            (unsigned)port);
		cr_expect_eq(rc, 2, "%s: %s", shorthand[i], out);
		cr_expect(strstr(out, "written another way"), "%s: %s", shorthand[i], out);
		free(out);
	}
	cr_expect_eq(http_server_connections(srv), 0, "a shorthand reached the server");
	expect_sh(0, "sent 2", "'%s' upload --dir '%s' --url 'http://127.0.0.1:%u/upload'", cli_path(), dir,
	          (unsigned)port);
	http_server_stop(srv);
	su_rm(dir);
	free(dir);
}

/* A server that accepts connections and never answers (the kernel's
 * backlog holds them; nobody reads): counts the connections it got. */
typedef struct silent {
	int fd;
	uint16_t port;
} silent;

static void
silent_start(silent *s)
{
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	cr_assert(s->fd >= 0 && bind(s->fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(s->fd, 64) == 0 &&
	          getsockname(s->fd, (struct sockaddr *)&a, &len) == 0);
	s->port = ntohs(a.sin_port);
}

/* Connections made so far: each is accepted now, kept open, never answered. */
static unsigned
silent_count(silent *s, int *held, unsigned cap)
{
	unsigned n = 0;
	int flags = fcntl(s->fd, F_GETFL);
	fcntl(s->fd, F_SETFL, flags | O_NONBLOCK);
	while (n < cap && (held[n] = accept(s->fd, NULL, NULL)) >= 0)
		n++;
	return n;
}

/* A pass against a server that never answers ends at its deadline: with 1 s
 * per request, 5 attempts each and two reports, that would be ten requests;
 * a 1.5 s deadline leaves room for two (a third only if a backoff draws
 * under a millisecond). */
Test(fs_hostile, an_upload_pass_has_a_deadline)
{
	char *dir = two_reports(), *out;
	silent srv;
	silent_start(&srv);
	int rc = sh(&out, "'%s' upload --dir '%s' --url 'http://127.0.0.1:%u/upload' --timeout-ms 1000 "
	            "--deadline-ms 1500 --attempts 5", cli_path(), dir, (unsigned)srv.port);
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "deadline (1500 ms) came: 2 report(s) stay pending"), "%s", out);
	cr_expect(strstr(out, "sent 0, kept 2"), "%s", out);
	free(out);
	int held[16];
	unsigned n = silent_count(&srv, held, 16);
	cr_expect(n >= 1 && n <= 3, "%u requests in a 1.5 s pass of 1 s requests (ten without a deadline)", n);
	for (unsigned i = 0; i < n; i++)
		close(held[i]);
	close(srv.fd);
	pm_store *s = su_open(dir, NULL);
	cr_expect_eq(pm_store_count(s, PM_STATE_PENDING), 2, "nothing is lost");
	pm_store_close(s);
	su_rm(dir);
	free(dir);
}
