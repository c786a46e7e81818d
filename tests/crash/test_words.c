/*
 * test_words.c — issue 16: the crash in the app's own words.  Each test
 * crashes tests/crash_words in a child and checks the .crash, the JSON twin
 * and `postmortem explain` on what it wrote.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

static void
run_words(crash_run *run, const char *how)
{
	const char *args[] = { how, NULL };
	crash_run_program(run, pm_test_build("tests/crash_words"), args, NULL);
}

static char *
explain(const char *path)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "'%s' explain '%s'", pm_test_build("tools/postmortem"), path) > 0);
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	free(cmd);
	return out;
}

Test(words, assert_message_in_asi_twin_and_explain, .timeout = 60)
{
	crash_run run;
	run_words(&run, "assert");
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGABRT, "status 0x%x", run.status);
	const char *want = "Assertion `n > 0 && \"the count must be positive\"' failed.";
	int t = crash_asi_line(&run.text, want), j = crash_asi_line(&run.json, want);
	cr_assert(t >= 0, "the .crash has no ASI line with the assertion");
	cr_assert(j >= 0, "the JSON twin has no ASI line with the assertion");
	/* glibc's own words: program, file, line, function. */
	cr_expect(strstr(run.json.exception.asi[j], "words.c:") != NULL, "%s", run.json.exception.asi[j]);
	cr_expect(strstr(run.json.exception.asi[j], "check_positive") != NULL, "%s", run.json.exception.asi[j]);
	cr_expect(strchr(run.json.exception.asi[j], '\n') == NULL, "lines are split, without newlines");
	char *out = explain(run.crash_path);
	cr_expect(strstr(out, want) != NULL, "explain does not show the assertion:\n%s", out);
	free(out);
	crash_run_free(&run);
}

Test(words, plain_abort_has_no_message, .timeout = 60)
{
	crash_run run;
	run_words(&run, "abort");
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGABRT, "status 0x%x", run.status);
	cr_expect_eq(run.json.exception.asi_count, 0, "an abort() without a message got ASI: %s",
	             run.json.exception.asi_count ? run.json.exception.asi[0] : "");
	cr_expect_eq(run.text.exception.asi_count, 0);
	crash_run_free(&run);
}

static const char *
annotation(const pm_report *r, const char *key)
{
	for (uint32_t i = 0; i < r->annotation_count; i++)
		if (strcmp(r->annotations[i].key, key) == 0)
			return r->annotations[i].value;
	return NULL;
}

static void
expect_context(const pm_report *r, const char *what)
{
	cr_expect_eq(crash_asi_line(r, "panicked at src/main.rs:2:5:"), 0, "%s: the crash message is not the first ASI line",
	             what);
	cr_expect_eq(crash_asi_line(r, "index out of bounds"), 1, "%s: the message's second line", what);
	cr_expect_eq(crash_asi_line(r, "first message"), -1, "%s: the replaced message is still there", what);
	cr_expect_eq(r->annotation_count, 3, "%s: %u annotations", what, r->annotation_count);
	cr_expect_str_eq(annotation(r, "build"), "1234", "%s", what);
	cr_expect_str_eq(annotation(r, "user.id"), "alice", "%s: a replaced value", what);
	cr_expect_null(annotation(r, "removed"), "%s: a removed key is reported", what);
	const char *lng = annotation(r, "long");
	cr_assert_not_null(lng, "%s", what);
	cr_expect_eq(strlen(lng), PM_ANNOTATION_VALUE_MAX, "%s: %zu bytes", what, strlen(lng));
	cr_expect(strstr(lng, "\xe2\x80\xa6") == lng + strlen(lng) - 3, "%s: truncation is not marked", what);
	cr_assert_eq(r->breadcrumb_count, PM_BREADCRUMBS_MAX, "%s: %u breadcrumbs", what, r->breadcrumb_count);
	for (uint32_t i = 0; i < r->breadcrumb_count; i++) {
		char want[32];
		snprintf(want, sizeof want, "step %u", 70 - PM_BREADCRUMBS_MAX + i);
		cr_expect_str_eq(r->breadcrumbs[i].message, want, "%s: breadcrumb %u", what, i);
		cr_expect(r->breadcrumbs[i].time.set && r->breadcrumbs[i].time.sec > 1700000000, "%s: time", what);
		if (i > 0)
			cr_expect(r->breadcrumbs[i].time.sec * 1000000 + r->breadcrumbs[i].time.usec >=
			              r->breadcrumbs[i - 1].time.sec * 1000000 + r->breadcrumbs[i - 1].time.usec,
			          "%s: breadcrumbs out of order", what);
	}
}

Test(words, crash_message_annotations_breadcrumbs, .timeout = 60)
{
	crash_run run;
	run_words(&run, "context");
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "status 0x%x", run.status);
	expect_context(&run.text, ".crash");
	expect_context(&run.json, "JSON twin");
	char *out = explain(run.crash_path);
	cr_expect(strstr(out, "panicked at src/main.rs:2:5:") != NULL, "%s", out);
	cr_expect(strstr(out, "  user.id: alice\n") != NULL, "%s", out);
	cr_expect(strstr(out, "  step 69\n") != NULL && strstr(out, "  step 59\n") == NULL,
	          "explain shows the last 10 breadcrumbs:\n%s", out);
	free(out);
	crash_run_free(&run);
}

Test(words, a_snapshot_carries_annotations_and_breadcrumbs, .timeout = 60)
{
	crash_run run;
	run_words(&run, "snapshot");
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0, "status 0x%x", run.status);
	cr_expect_eq(run.json.kind, PM_KIND_SNAPSHOT);
	cr_expect_str_eq(annotation(&run.json, "user.id"), "alice");
	cr_expect_eq(run.json.breadcrumb_count, PM_BREADCRUMBS_MAX);
	cr_expect_eq(run.text.annotation_count, run.json.annotation_count);
	cr_expect_eq(run.text.breadcrumb_count, run.json.breadcrumb_count);
	crash_run_free(&run);
}

/* A signal another process sent: the sender by name, pid and uid, and not a memory fault. */
static void
expect_sent(const char *how, int sig, const char *call)
{
	crash_run run;
	run_words(&run, how);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == sig, "%s: status 0x%x", how, run.status);
	for (int i = 0; i < 2; i++) {
		const pm_exception *e = i ? &run.json.exception : &run.text.exception;
		const char *what = i ? "JSON twin" : ".crash";
		cr_expect_str_eq(e->terminating_process, "pm-sender", "%s %s", how, what);
		cr_expect(e->terminating_pid > 0 && e->terminating_pid != run.json.header.pid, "%s %s: pid %lld", how,
		          what, (long long)e->terminating_pid);
		char want[128];
		snprintf(want, sizeof want, "Sent by another process with %s: pm-sender [%lld], uid %u", call,
		         (long long)e->terminating_pid, (unsigned)getuid());
		cr_expect(e->term_description && strcmp(e->term_description, want) == 0, "%s %s: %s", how, what,
		          e->term_description ? e->term_description : "(no description)");
		cr_expect_not(e->has_address, "%s %s: a sent signal has no fault address", how, what);
		cr_expect_null(e->note, "%s %s: a sent signal is not a self-termination", how, what);
	}
	char *out = explain(run.crash_path);
	cr_expect(strstr(out, "another process sent it; nothing this process did caused it.") != NULL, "%s:\n%s",
	          how, out);
	cr_expect(strstr(out, "pm-sender [") != NULL, "%s: explain does not name the sender:\n%s", how, out);
	cr_expect(strstr(out, "read or wrote memory") == NULL && strstr(out, "called abort()") == NULL,
	          "%s: explain blames the process:\n%s", how, out);
	free(out);
	crash_run_free(&run);
}

Test(words, signals_sent_by_another_process_name_the_sender, .timeout = 60)
{
	expect_sent("kill", SIGSEGV, "kill()");
	expect_sent("tgkill", SIGABRT, "tkill() or tgkill()");
	expect_sent("sigqueue", SIGSEGV, "sigqueue()");
}

/* "thread N step M", whole, or anything marked as being written when the crash came. */
static bool
whole_or_marked(const char *s)
{
	int n, len = 0;
	long step;
	if (sscanf(s, "thread %d step %ld%n", &n, &step, &len) == 2 && s[len] == '\0' && n >= 0 && n < 4)
		return true;
	const char *mark = strstr(s, " [being written]");
	return mark && mark[strlen(" [being written]")] == '\0';
}

Test(words, a_crash_amid_writers_sees_whole_entries_or_marked_ones, .timeout = 60)
{
	crash_run run;
	run_words(&run, "busy");
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "status 0x%x", run.status);
	cr_expect_eq(run.json.breadcrumb_count, PM_BREADCRUMBS_MAX);
	cr_expect_eq(run.json.annotation_count, 4);
	for (uint32_t i = 0; i < run.json.breadcrumb_count; i++)
		cr_expect(whole_or_marked(run.json.breadcrumbs[i].message), "breadcrumb %u: %s", i,
		          run.json.breadcrumbs[i].message);
	for (uint32_t i = 0; i < run.json.annotation_count; i++)
		cr_expect(whole_or_marked(run.json.annotations[i].value), "%s: %s", run.json.annotations[i].key,
		          run.json.annotations[i].value);
	crash_run_free(&run);
}
