/*
 * test_watchdog.c — the hang watchdog on a real program (sample_crashes/hang.c)
 * whose main loop stops sending heartbeats for 2 s, with a 250 ms threshold.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "formats/decode/decode.h"
#include "util.h"

/* What both files say; the JSON twin also carries the kind and thread ids. */
static void
expect_hang_report(const pm_report *r)
{
	cr_expect_str_eq(r->exception.term_namespace, "WATCHDOG");
	cr_expect_eq(r->exception.term_code, 0x8badf00d);
	int32_t i = pm_report_crashed_thread(r);
	cr_assert(i >= 0, "the hang report marks no thread");
	cr_expect_eq(r->exception.triggered_thread, i);
	const pm_thread *t = &r->threads[i];
	cr_expect(crash_frame_index(r, t, "block_main_loop") >= 0,
	          "the blocked thread's stack does not show the blocking function");
	cr_expect(crash_frame_index(r, t, "main") >= 0);
}

Test(watchdog, hang_is_reported_and_kept_after_recovery, .timeout = 60)
{
	crash_run run;
	const char *args[] = { "keep", NULL };
	crash_run_program(&run, crash_sample_path("hang"), args, NULL);
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0, "the program must recover and exit 0");
	expect_hang_report(&run.json);
	expect_hang_report(&run.text);
	cr_expect_eq(run.json.kind, PM_KIND_HANG);
	int32_t blocked = pm_report_crashed_thread(&run.json);
	cr_expect_eq(run.json.threads[blocked].id, (uint64_t)run.json.header.pid, "the watched thread is main");
	cr_expect_str_eq(run.json.exception.note, "NON-FATAL CONDITION (this is NOT a crash)");
	cr_expect(strstr(run.json.exception.term_description, "recovered") != NULL);
	/* The duration written is one the watchdog could see: past its threshold
	 * (0.25 s) and within the run.  (How close it comes to the 2 s the program
	 * slept depends on scheduling: no clock reading is asserted.) */
	const char *d = strstr(run.json.exception.term_description, "blocked for ");
	double secs = 0;
	cr_expect(d != NULL && sscanf(d, "blocked for %lf s", &secs) == 1, "%s",
	          run.json.exception.term_description);
	cr_expect(secs >= 0.25 && secs < 60, "blocked for %f s", secs);
	char *dmp = crash_dmp_path(&run);
	cr_expect(access(dmp, R_OK) == 0, "the hang report has no minidump");
	free(dmp);
	crash_run_free(&run);
}

Test(watchdog, hang_report_is_retracted_on_recovery, .timeout = 60)
{
	crash_run run;
	const char *args[] = { "retract", NULL };
	crash_run_program_noreport(&run, crash_sample_path("hang"), args, NULL);
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0);
	cr_expect_eq(run.reports, 0, "a retracted hang must leave no report");
	char *cmd, *left;
	cr_assert(asprintf(&cmd, "ls -A '%s/pending'", run.dir) > 0);
	pm_test_run(cmd, &left);
	cr_expect_str_empty(left, "a retracted hang left files: %s", left);
	free(left);
	free(cmd);
	crash_run_free(&run);
}

Test(watchdog, stops_when_the_watched_thread_exits, .timeout = 60)
{
	crash_run run;
	const char *args[] = { "exit", NULL };
	crash_run_program_noreport(&run, crash_sample_path("hang"), args, NULL);
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0,
	          "the watchdog thread outlived the thread it watched (status 0x%x)", run.status);
	cr_expect_eq(run.reports, 0, "a thread that exits is not a hang");
	crash_run_free(&run);
}

Test(watchdog, heartbeats_reach_systemd, .timeout = 60)
{
	char *dir = pm_test_tmpdir(), *sock_path, *env_sock;
	cr_assert(asprintf(&sock_path, "%s/notify", dir) > 0);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock_path);
	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	cr_assert(asprintf(&env_sock, "NOTIFY_SOCKET=%s", sock_path) > 0);
	const char *env[] = { env_sock, "WATCHDOG_USEC=1000000", NULL };
	const char *args[] = { "notify", NULL };
	crash_run run;
	crash_run_program_noreport(&run, crash_sample_path("hang"), args, env);
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0);
	char msg[64];
	ssize_t n = recv(fd, msg, sizeof msg - 1, MSG_DONTWAIT);
	cr_assert(n > 0, "no notification reached the socket");
	msg[n] = '\0';
	cr_expect_str_eq(msg, "WATCHDOG=1");
	crash_run_free(&run);
	close(fd);
	free(env_sock);
	free(sock_path);
	free(dir);
}

Test(watchdog, kill_mode_dies_of_sigkill_with_0x8badf00d, .timeout = 60)
{
	crash_run run;
	const char *args[] = { "kill", NULL };
	crash_run_program(&run, crash_sample_path("hang"), args, NULL);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGKILL, "status 0x%x", run.status);
	expect_hang_report(&run.json);
	cr_expect_str_eq(run.json.exception.type, "EXC_CRASH");
	cr_expect_str_eq(run.json.exception.signal_name, "SIGKILL");

	/* postmortem explain names the watchdog and shows the blocked thread. */
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "'%s' explain '%s'", pm_test_build("tools/postmortem"), run.json_path) > 0);
	int st = pm_test_run(cmd, &out);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
	cr_expect(strstr(out, "0x8badf00d") != NULL, "explain does not show the code:\n%s", out);
	cr_expect(strstr(out, "watchdog") != NULL, "explain does not name the watchdog:\n%s", out);
	cr_expect(strstr(out, "block_main_loop") != NULL, "explain does not show the blocked frame:\n%s", out);
	free(out);
	free(cmd);
	crash_run_free(&run);
}
