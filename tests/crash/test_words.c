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

#include "crash/crash_util.h"
#include "util.h"

static void
run_words(crash_run *run, const char *how)
{
	const char *args[] = { how, NULL };
	crash_run_program(run, pm_test_build("tests/crash_words"), args, NULL);
}

/* The index of the first ASI line containing needle, or -1. */
static int
asi_line(const pm_report *r, const char *needle)
{
	for (uint32_t i = 0; i < r->exception.asi_count; i++)
		if (strstr(r->exception.asi[i], needle))
			return (int)i;
	return -1;
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
	int t = asi_line(&run.text, want), j = asi_line(&run.json, want);
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
