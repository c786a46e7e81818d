/*
 * test_write_report.c — the writers and the report's storage as a tool sees
 * them: only postmortem-tools.h, no sink or arena of ours in sight.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postmortem-tools.h"
#include "fixture_report.h"

/* The bytes pm_write_report_fd wrote into a fresh file. */
static char *
through_fd(const pm_report *r, pm_format f, size_t *len)
{
	FILE *tmp = tmpfile();
	cr_assert(tmp);
	cr_assert_eq(pm_write_report_fd(r, f, fileno(tmp)), PM_OK);
	off_t n = lseek(fileno(tmp), 0, SEEK_END);
	cr_assert_gt(n, 0);
	char *s = calloc(1, (size_t)n + 1);
	cr_assert_eq(pread(fileno(tmp), s, (size_t)n, 0), (ssize_t)n);
	fclose(tmp);
	*len = (size_t)n;
	return s;
}

typedef struct pieces {
	char *s;
	size_t len, calls, stop_after, refused;
} pieces;

static bool
collect(void *ctx, const char *p, size_t n)
{
	pieces *c = ctx;
	if (c->stop_after && c->calls == c->stop_after) {
		c->refused++;
		return false;
	}
	c->calls++;
	c->s = realloc(c->s, c->len + n + 1);
	memcpy(c->s + c->len, p, n);
	c->len += n;
	c->s[c->len] = '\0';
	return true;
}

/* Every way out gives the same bytes: the string, a descriptor, a callback. */
static void
same_three_ways(const pm_report *r, pm_format f)
{
	char *s = NULL;
	size_t len = 0;
	cr_assert_eq(pm_write_report_string(r, f, &s, &len), PM_OK);
	cr_assert_eq(strlen(s), len);
	size_t fd_len;
	char *by_fd = through_fd(r, f, &fd_len);
	cr_expect_eq(fd_len, len);
	cr_expect_str_eq(by_fd, s);
	pieces c = { 0 };
	cr_assert_eq(pm_write_report_cb(r, f, collect, &c), PM_OK);
	cr_expect_str_eq(c.s, s);
	free(c.s);
	free(by_fd);
	free(s);
}

Test(write_report, text_and_json_the_same_three_ways)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	same_three_ways(&r, PM_FORMAT_TEXT);
	same_three_ways(&r, PM_FORMAT_JSON);
	pm_report_free(&r);
}

Test(write_report, json_string_reads_back_and_writes_the_same)
{
	pm_report r, back;
	pm_report_init(&r);
	pm_report_init(&back);
	pm_fixture_arm64_apple(&r);
	char *json = NULL, *again = NULL;
	size_t len;
	cr_assert_eq(pm_write_report_string(&r, PM_FORMAT_JSON, &json, &len), PM_OK);
	cr_assert_eq(pm_read_report(json, len, &back, NULL), PM_OK);
	cr_expect_eq(back.format, PM_FORMAT_JSON);
	cr_assert_eq(pm_write_report_string(&back, PM_FORMAT_JSON, &again, NULL), PM_OK);
	cr_expect_str_eq(again, json);
	free(json);
	free(again);
	pm_report_free(&back);
	pm_report_free(&r);
}

Test(write_report, formats_it_cannot_write_are_refused)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	char *s = (char *)"untouched";
	for (pm_format f = PM_FORMAT_UNKNOWN; f <= PM_FORMAT_MINIDUMP; f++) {
		if (f == PM_FORMAT_TEXT || f == PM_FORMAT_JSON)
			continue;
		cr_expect_eq(pm_write_report_string(&r, f, &s, NULL), PM_E_UNSUPPORTED, "format %d", f);
		cr_expect_null(s);
		cr_expect_eq(pm_write_report_fd(&r, f, STDERR_FILENO), PM_E_UNSUPPORTED);
	}
	cr_expect_eq(pm_write_report_fd(&r, PM_FORMAT_TEXT, -1), PM_E_INVAL);
	cr_expect_eq(pm_write_report_cb(&r, PM_FORMAT_TEXT, NULL, NULL), PM_E_INVAL);
	cr_expect_eq(pm_write_report_string(NULL, PM_FORMAT_TEXT, &s, NULL), PM_E_INVAL);
	pm_report_free(&r);
}

Test(write_report, failures_say_io)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	/* A callback that takes the first piece and refuses the second: asked no third time. */
	char big[40000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	r.exception.message = big;
	pieces c = { .stop_after = 1 };
	cr_expect_eq(pm_write_report_cb(&r, PM_FORMAT_JSON, collect, &c), PM_E_IO);
	cr_expect_eq(c.calls, 1);
	cr_expect_eq(c.refused, 1);
	free(c.s);
	/* A descriptor open for reading only. */
	int fd = open("/dev/null", O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pm_write_report_fd(&r, PM_FORMAT_TEXT, fd), PM_E_IO);
	close(fd);
	pm_report_free(&r);
}

Test(write_report, a_report_built_by_hand_owns_its_strings)
{
	pm_report r;
	pm_report_init(&r);
	char name[32];
	strcpy(name, "HandMade");
	r.os = PM_OS_LINUX;
	r.header.process_name = pm_report_strdup(&r, name);
	r.exception.signal_name = pm_report_strdup(&r, "SIGABRT");
	r.threads = pm_report_alloc(&r, sizeof *r.threads, _Alignof(pm_thread));
	cr_assert(r.threads);
	cr_expect_eq(r.threads[0].frame_count, 0, "zeroed");
	r.threads[0].crashed = true;
	r.threads[0].name = pm_report_strdup(&r, "worker");
	r.thread_count = 1;
	cr_expect_null(pm_report_strdup(&r, NULL));
	cr_expect_null(pm_report_alloc(&r, SIZE_MAX, 8), "an impossible size is refused, not wrapped");
	memset(name, 'X', sizeof name - 1);
	char *text = NULL;
	cr_assert_eq(pm_write_report_string(&r, PM_FORMAT_TEXT, &text, NULL), PM_OK);
	cr_expect(strstr(text, "HandMade"), "%s", text);
	cr_expect(strstr(text, "worker"), "%s", text);
	cr_expect_null(strstr(text, "XXXX"));
	free(text);
	pm_report_free(&r);
	cr_expect_null(r.arena);
	cr_expect_null(r.threads);
	pm_report_free(&r);
}
