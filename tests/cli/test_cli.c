/*
 * test_cli.c — the postmortem command line end to end, as a user runs it:
 * convert and explain on the shared Apple reports and on postmortem's own
 * sample reports, and the errors and exit statuses of bad input and flags.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "postmortem-tools.h"
#include "util.h"

/* Run `postmortem ARGS`; returns the exit status, *out gets stdout+stderr. */
static int
pm(const char *args, char **out)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' %s", pm_test_build("tools/postmortem"), args) > 0);
	int st = pm_test_run(cmd, out);
	free(cmd);
	cr_assert(WIFEXITED(st), "postmortem %s did not exit normally", args);
	return WEXITSTATUS(st);
}

static pm_report
read_file(const char *path)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_assert_eq(pm_read_report_file(path, &r, &err), PM_OK, "%s: line %u: %s", path, err.line, err.message);
	return r;
}

static const char *const ips_samples[] = {
	"samples/apple/pycrashreport__user_mode_crash_report_monterey_non_symbolicated.ips",
	"samples/apple/macsymbolicator__ios-crash-in-ips-format.ips",
	"samples/apple/lldb__asi.txt",
	"samples/apple/pycrashreport__user_mode_crash_report_ios14_symbolicated.ips",
	"samples/apple/pycrashreport__user_mode_crash_report_ios14_non_symbolicated_abort.ips",
	"docs/examples/E_ios_sigtrap.ips",
};

Test(cli, convert_turns_every_ips_into_an_apple_crash)
{
	char *dir = pm_test_tmpdir();
	for (size_t i = 0; i < sizeof ips_samples / sizeof ips_samples[0]; i++) {
		char *in = strdup(pm_test_shared("%s", ips_samples[i])), *args, *out_path, *out;
		cr_assert(asprintf(&out_path, "%s/out-%zu.crash", dir, i) > 0);
		cr_assert(asprintf(&args, "convert '%s' --to crash -o '%s'", in, out_path) > 0);
		cr_assert_eq(pm(args, &out), 0, "%s: %s", in, out);
		pm_report ips = read_file(in), text = read_file(out_path);
		cr_expect_eq(text.format, PM_FORMAT_TEXT);
		cr_expect_eq(text.thread_count, ips.thread_count, "%s", in);
		cr_expect_eq(pm_report_crashed_thread(&text), pm_report_crashed_thread(&ips), "%s", in);
		cr_expect_eq(text.image_count, ips.image_count, "%s", in);
		cr_expect_str_eq(text.exception.type ? text.exception.type : "", ips.exception.type ? ips.exception.type : "");
		char *crash = pm_test_slurp(out_path, NULL);
		cr_expect(strstr(crash, "Binary Images:\n") && strstr(crash, "\nEOF\n"), "%s: not an Apple layout", in);
		free(crash);
		pm_report_free(&ips);
		pm_report_free(&text);
		free(out);
		free(args);
		free(out_path);
		free(in);
	}
	free(dir);
}

/* sample_crashes/reports holds JSON twins beside the .crash the handler wrote. */
static void
expect_twin_renders_to_its_crash(const char *name)
{
	char json[256], crash[256], *args, *out;
	snprintf(json, sizeof json, "sample_crashes/reports/%s.json", name);
	snprintf(crash, sizeof crash, "sample_crashes/reports/%s.crash", name);
	char *crash_path = strdup(pm_test_source("%s", crash));
	cr_assert(asprintf(&args, "convert '%s' --to crash", pm_test_source("%s", json)) > 0);
	cr_assert_eq(pm(args, &out), 0, "%s", out);
	size_t len;
	char *want = pm_test_slurp(crash_path, &len);
	cr_expect(strlen(out) == len && memcmp(out, want, len) == 0,
	          "%s.json rendered as text differs from %s.crash", name, name);
	free(want);
	free(out);
	free(args);
	free(crash_path);
}

Test(cli, sample_twins_render_byte_identical)
{
	expect_twin_renders_to_its_crash("sigsegv_null_deref");
	expect_twin_renders_to_its_crash("watchdog_0x8badf00d");
}

static char *
explain(const char *path)
{
	char *args, *out;
	cr_assert(asprintf(&args, "explain '%s'", path) > 0);
	cr_assert_eq(pm(args, &out), 0, "explain %s: %s", path, out);
	free(args);
	return out;
}

Test(cli, explain_names_the_watchdog_and_the_blocked_thread)
{
	char *out = explain(pm_test_source("sample_crashes/reports/watchdog_0x8badf00d.json"));
	cr_expect(strstr(out, "0x8badf00d") != NULL, "%s", out);
	cr_expect(strstr(out, "watchdog") != NULL, "%s", out);
	cr_expect(strstr(out, "block_main_loop") != NULL, "%s", out);
	free(out);
	out = explain(pm_test_source("sample_crashes/reports/watchdog_0x8badf00d.crash"));
	cr_expect(strstr(out, "0x8badf00d") != NULL, "the .crash text alone must decode too:\n%s", out);
	free(out);
}

Test(cli, explain_a_null_dereference)
{
	char *out = explain(pm_test_source("sample_crashes/reports/sigsegv_null_deref.crash"));
	cr_expect(strstr(out, "SIGSEGV") && strstr(out, "NULL pointer"), "%s", out);
	cr_expect(strstr(out, "crash_null_deref") != NULL, "%s", out);
	cr_expect(strstr(out, "your app") != NULL, "frame 0 is in the app:\n%s", out);
	free(out);
}

Test(cli, explain_reads_every_shared_sample)
{
	static const char *const texts[] = {
		"acrp__XCDYouTubeKit-54.txt", "acrp__bruno.txt", "acrp__handcrafted.txt",
		"kscrash__BadPointer.txt", "kscrash__MainThreadDeadlock.txt", "kscrash__NSException.txt",
		"macsymbolicator__ios-crash-with-json-header.crash",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		free(explain(pm_test_shared("samples/apple/%s", texts[i])));
	}
	for (size_t i = 0; i < sizeof ips_samples / sizeof ips_samples[0]; i++)
		free(explain(pm_test_shared("%s", ips_samples[i])));
}

Test(cli, bad_input_gets_a_clear_error_and_a_nonzero_exit)
{
	char *dir = pm_test_tmpdir(), *garbage, *args, *out;
	cr_assert(asprintf(&garbage, "%s/garbage.crash", dir) > 0);
	FILE *f = fopen(garbage, "w");
	fputs("hello\nthis is not\na crash report\n", f);
	fclose(f);
	cr_assert(asprintf(&args, "explain '%s'", garbage) > 0);
	cr_expect_eq(pm(args, &out), 1);
	cr_expect(strstr(out, "not a crash report") != NULL, "%s", out);
	free(out);
	free(args);

	cr_expect_eq(pm("explain /nonexistent/report.json", &out), 1);
	cr_expect(strstr(out, "/nonexistent/report.json") != NULL, "the message must name the file:\n%s", out);
	free(out);

	cr_assert(asprintf(&args, "explain '%s'", dir) > 0);
	cr_expect_eq(pm(args, &out), 1, "a directory is not a report");
	free(out);
	free(args);

	/* A torn JSON twin: the error names the line where it breaks. */
	char *torn;
	cr_assert(asprintf(&torn, "%s/torn.json", dir) > 0);
	f = fopen(torn, "w");
	fputs("{\n  \"schema\": \"postmortem\",\n  \"schema_version\": 1,\n  \"threads\": [\n", f);
	fclose(f);
	cr_assert(asprintf(&args, "convert '%s'", torn) > 0);
	cr_expect_eq(pm(args, &out), 1);
	cr_expect(strstr(out, "torn.json:") != NULL && strstr(out, ": invalid JSON") != NULL, "%s", out);
	free(out);
	free(args);
	free(torn);
	free(garbage);
	free(dir);
}

Test(cli, output_that_cannot_be_written_exits_3)
{
	char *args, *out;
	cr_assert(asprintf(&args, "convert '%s' -o /nonexistent/dir/out.crash",
	                   pm_test_source("sample_crashes/reports/sigsegv_null_deref.json")) > 0);
	cr_expect_eq(pm(args, &out), 3, "%s", out);
	cr_expect(strstr(out, "cannot write /nonexistent/dir/out.crash") != NULL, "%s", out);
	free(out);
	free(args);
}

Test(cli, flags_and_help)
{
	static const char *const commands[] = { "convert", "explain", "symbolicate", "list", "show", "upload", "run" };
	char *out, *args;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		cr_assert(asprintf(&args, "%s --help", commands[i]) > 0);
		cr_expect_eq(pm(args, &out), 0, "%s --help", commands[i]);
		cr_expect(strstr(out, "usage: postmortem") != NULL, "%s --help: %s", commands[i], out);
		free(out);
		free(args);
		cr_assert(asprintf(&args, "%s --no-such-flag", commands[i]) > 0);
		cr_expect_eq(pm(args, &out), 2, "%s with a bad flag must exit 2", commands[i]);
		free(out);
		free(args);
	}
	cr_expect_eq(pm("--help", &out), 0);
	free(out);
	cr_expect_eq(pm("frobnicate", &out), 2);
	cr_expect(strstr(out, "unknown command") != NULL);
	free(out);
	cr_expect_eq(pm("", &out), 2);
	free(out);
	cr_expect_eq(pm("convert --to yaml x", &out), 2);
	free(out);
	cr_expect_eq(pm("--version", &out), 0);
	cr_expect(strncmp(out, "postmortem ", 11) == 0);
	free(out);
}

Test(cli, version_in_every_spelling)
{
	static const char *const spellings[] = { "--version", "-v", "version" };
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
		char *out;
		cr_expect_eq(pm(spellings[i], &out), 0, "postmortem %s: %s", spellings[i], out);
		cr_expect(strncmp(out, "postmortem ", 11) == 0 && strchr(out + 11, '.'), "postmortem %s: %s", spellings[i], out);
		free(out);
	}
}

Test(cli, unknown_commands_get_a_suggestion)
{
	static const char *const typos[][2] = {
		{ "explian", "explain" }, { "lsit", "list" }, { "uplod", "upload" }, { "symbolicat", "symbolicate" },
	};
	char *out, *args;
	for (size_t i = 0; i < sizeof typos / sizeof typos[0]; i++) {
		cr_assert(asprintf(&args, "%s", typos[i][0]) > 0);
		cr_expect_eq(pm(args, &out), 2);
		char *want;
		cr_assert(asprintf(&want, "Did you mean 'postmortem %s'?", typos[i][1]) > 0);
		cr_expect(strstr(out, want) != NULL, "%s: %s", typos[i][0], out);
		free(want);
		free(out);
		free(args);
	}
	cr_expect_eq(pm("zzzzzzzz", &out), 2);
	cr_expect(strstr(out, "unknown command 'zzzzzzzz'") && !strstr(out, "Did you mean"), "%s", out);
	free(out);
}

Test(cli, option_errors_name_the_whole_command)
{
	static const char *const commands[] = { "convert", "explain", "symbolicate", "list", "show", "upload", "run" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		char *args, *out, *want;
		cr_assert(asprintf(&args, "%s --no-such-flag", commands[i]) > 0);
		cr_assert(asprintf(&want, "postmortem %s: unrecognized option", commands[i]) > 0);
		cr_expect_eq(pm(args, &out), 2);
		cr_expect(strstr(out, want) != NULL, "%s", out);
		free(want);
		free(out);
		free(args);
	}
}

/* enable's delivery flags are judged before anything of the machine is read or
 * changed (these run as root in CI: none of them may reach enable), and a DSN's
 * key is never echoed. */
Test(cli, system_delivery_flags_are_checked_first)
{
	static const char *const bad[][2] = {
		{ "system disable --dsn https://k@example.com/1", "go with enable" },
		{ "system status --no-dsn", "go with enable" },
		{ "system enable --environment staging", "go with --dsn" },
		{ "system enable --upload-private", "go with --dsn" },
		{ "system enable --dsn https://k@example.com/1 --no-dsn", "one or the other" },
		{ "system enable --dsn https://0badc0ffee1234@/42", "refused" },
		{ "system enable --dsn http://0badc0ffee1234@example.com/42", "refused" },
		{ "system enable --dsn https://0badc0ffee1234@example.com/42 --environment 'a b'", "refused" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out;
		cr_expect_eq(pm(bad[i][0], &out), 2, "%s: %s", bad[i][0], out);
		cr_expect(strstr(out, bad[i][1]) != NULL, "%s: %s", bad[i][0], out);
		cr_expect(strstr(out, "0badc0ffee1234") == NULL, "%s echoed the key: %s", bad[i][0], out);
		free(out);
	}
}

static bool
all_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* The CLI's own words keep to ASCII unless the locale is UTF-8. */
Test(cli, ascii_unless_the_locale_is_utf8)
{
	char *args, *out;
	cr_assert(asprintf(&args, "explain '%s' 2>&1; '%s' explain /nonexistent/r\xc3\xa9port.json 2>&1",
	                   pm_test_source("sample_crashes/reports/sigsegv_null_deref.json"),
	                   pm_test_build("tools/postmortem")) > 0);
	cr_assert_eq(setenv("LC_ALL", "C", 1), 0);
	pm(args, &out);
	cr_expect(all_ascii(out), "non-ASCII output under LC_ALL=C:\n%s", out);
	cr_expect(strstr(out, ") -- a NULL pointer dereference"), "%s", out);
	cr_expect(strstr(out, "/nonexistent/r?port.json"), "%s", out);
	free(out);
	cr_assert_eq(setenv("LC_ALL", "C.UTF-8", 1), 0);
	pm(args, &out);
	cr_expect(strstr(out, ") \u2014 a NULL pointer dereference"), "%s", out);
	cr_expect(strstr(out, "/nonexistent/r\xc3\xa9port.json"), "%s", out);
	free(out);
	unsetenv("LC_ALL");
	free(args);
}
