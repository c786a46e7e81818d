/*
 * test_read_detect.c — format detection on every sample, the any-format
 * reader's dispatch and the file loader's errors.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postmortem-tools.h"
#include "formats/model/model.h"
#include "tests/util.h"

static pm_format
detect_shared(const char *rel)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("%s", rel), &len);
	pm_format f = pm_detect_format(data, len);
	free(data);
	return f;
}

static void
expect_format(const char *rel, pm_format want)
{
	pm_format got = detect_shared(rel);
	cr_expect_eq(got, want, "%s: detected %s, want %s", rel, pm_format_name(got), pm_format_name(want));
}

Test(read_detect, apple_samples)
{
	static const struct {
		const char *file;
		pm_format want;
	} cases[] = {
		{ "acrp__XCDYouTubeKit-54.txt", PM_FORMAT_TEXT },
		{ "acrp__bruno.txt", PM_FORMAT_TEXT },
		{ "acrp__handcrafted.txt", PM_FORMAT_TEXT },
		{ "acrp__spaces.txt", PM_FORMAT_TEXT },
		{ "acrp__xcode16.txt", PM_FORMAT_TEXT },
		{ "kscrash__BadPointer.txt", PM_FORMAT_TEXT },
		{ "kscrash__MainThreadDeadlock.txt", PM_FORMAT_TEXT },
		{ "kscrash__NSException.txt", PM_FORMAT_TEXT },
		{ "lldb__asi.txt", PM_FORMAT_IPS },
		{ "macsymbolicator__ios-crash-in-ips-format.ips", PM_FORMAT_IPS },
		{ "macsymbolicator__ios-crash-with-json-header.crash", PM_FORMAT_IPS_TEXT },
		{ "pycrashreport__user_mode_crash_report_ios14_non_symbolicated_abort.ips", PM_FORMAT_IPS_TEXT },
		{ "pycrashreport__user_mode_crash_report_ios14_symbolicated.ips", PM_FORMAT_IPS_TEXT },
		{ "pycrashreport__user_mode_crash_report_monterey_non_symbolicated.ips", PM_FORMAT_IPS },
	};
	char rel[256];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(rel, sizeof rel, "samples/apple/%s", cases[i].file);
		expect_format(rel, cases[i].want);
	}
}

Test(read_detect, composed_examples)
{
	expect_format("docs/examples/A_ios_classic_sigsegv.crash", PM_FORMAT_TEXT);
	expect_format("docs/examples/B_ios_classic_sigabrt.crash", PM_FORMAT_TEXT);
	expect_format("docs/examples/C_ios_watchdog_classic.crash", PM_FORMAT_TEXT);
	expect_format("docs/examples/D_macos_classic_sigsegv.crash", PM_FORMAT_TEXT);
	expect_format("docs/examples/E_ios_sigtrap.ips", PM_FORMAT_IPS);
	expect_format("docs/examples/E_ios_sigtrap_translated.crash", PM_FORMAT_TEXT);
	/* Two body members on their own are no document of any kind. */
	expect_format("docs/examples/F_watchdog_ips_fragment.json", PM_FORMAT_UNKNOWN);
	expect_format("docs/examples/F_watchdog_translated_fragment.txt", PM_FORMAT_TEXT);
}

static pm_format
detect(const char *s)
{
	return pm_detect_format(s, strlen(s));
}

Test(read_detect, json_twin_is_told_from_ips)
{
	cr_expect_eq(detect("{\n  \"schema\": \"postmortem\",\n  \"schema_version\": 1\n}\n"), PM_FORMAT_JSON);
	cr_expect_eq(detect("{\"schema\":\"other\"}"), PM_FORMAT_JSON);
	cr_expect_eq(detect("{ \"kind\" : \"crash\", \"schema\" : \"postmortem\" }"), PM_FORMAT_JSON);
	/* An .ips metadata line is a JSON object too, but carries bug_type and no schema. */
	cr_expect_eq(detect("{\"app_name\":\"x\",\"bug_type\":\"309\"}\n{\"threads\":[]}"), PM_FORMAT_IPS);
	cr_expect_eq(detect("{\"app_name\":\"x\",\"bug_type\":\"309\"}\n"), PM_FORMAT_IPS);
	cr_expect_eq(detect("{\"app_name\":\"x\",\"bug_type\":\"109\"}\nIncident Identifier: X\n"),
	             PM_FORMAT_IPS_TEXT);
	cr_expect_eq(detect("{\"app_name\":\"x\"}\n{\"threads\":[]}"), PM_FORMAT_UNKNOWN);
}

Test(read_detect, banners_text_and_garbage)
{
	cr_expect_eq(detect("-------------------------------------\n"
	                    "Translated Report (Full Report Below)\n"
	                    "-------------------------------------\n\nProcess: x [1]\n"),
	             PM_FORMAT_TRANSLATED);
	cr_expect_eq(detect("Process:               MacDemo [70231]\n"), PM_FORMAT_TEXT);
	cr_expect_eq(detect("some preamble\n\nThread 0 Crashed:\n0 a 0x1 b\n"), PM_FORMAT_TEXT);
	cr_expect_eq(detect("hello world\n"), PM_FORMAT_UNKNOWN);
	cr_expect_eq(detect("{\"a\":1}"), PM_FORMAT_UNKNOWN);
	cr_expect_eq(pm_detect_format("", 0), PM_FORMAT_UNKNOWN);
	cr_expect_eq(pm_detect_format("\0\0\0Process:", 12), PM_FORMAT_UNKNOWN);
}

Test(read_detect, format_names)
{
	cr_expect_str_eq(pm_format_name(PM_FORMAT_JSON), "json");
	cr_expect_str_eq(pm_format_name(PM_FORMAT_TEXT), "crash");
	cr_expect_str_eq(pm_format_name(PM_FORMAT_IPS), "ips");
	cr_expect_str_eq(pm_format_name(PM_FORMAT_IPS_TEXT), "ips-text");
	cr_expect_str_eq(pm_format_name(PM_FORMAT_TRANSLATED), "translated");
	cr_expect_str_eq(pm_format_name(PM_FORMAT_UNKNOWN), "unknown");
}

static pm_err
read_file(const char *path, pm_read_error *err)
{
	pm_report r;
	memset(err, 0, sizeof *err);
	pm_report_init(&r);
	pm_err e = pm_read_report_file(path, &r, err);
	pm_report_free(&r);
	return e;
}

Test(read_detect, file_errors)
{
	pm_read_error err;
	char *dir = pm_test_tmpdir();
	char path[512];

	snprintf(path, sizeof path, "%s/missing.ips", dir);
	cr_expect_eq(read_file(path, &err), PM_E_NOTFOUND);
	cr_expect(strstr(err.message, "No such file") != NULL, "%s", err.message);

	cr_expect_eq(read_file(dir, &err), PM_E_IO);
	cr_expect(strstr(err.message, "directory") != NULL, "%s", err.message);

	snprintf(path, sizeof path, "%s/empty.crash", dir);
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	close(fd);
	cr_expect_eq(read_file(path, &err), PM_E_FORMAT);
	cr_expect(strstr(err.message, "empty") != NULL, "%s", err.message);

	/* A sparse file one byte over the limit costs no disk. */
	snprintf(path, sizeof path, "%s/huge.ips", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)PM_READ_MAX_BYTES + 1), 0);
	close(fd);
	cr_expect_eq(read_file(path, &err), PM_E_LIMIT);
	unlink(path);

	snprintf(path, sizeof path, "%s/garbage.txt", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("just some words\n", f);
	fclose(f);
	cr_expect_eq(read_file(path, &err), PM_E_FORMAT);
	cr_expect(strncmp(err.message, "not a crash report: ", 20) == 0, "%s", err.message);

	pm_test_rmdir(dir);
}

Test(read_detect, reads_a_sample_file)
{
	pm_report r;
	pm_read_error err = { 0 };
	pm_report_init(&r);
	pm_err e = pm_read_report_file(
		pm_test_shared("samples/apple/pycrashreport__user_mode_crash_report_monterey_non_symbolicated.ips"),
		&r, &err);
	cr_assert_eq(e, PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(r.format, PM_FORMAT_IPS);
	cr_expect_str_eq(r.exception.type, "EXC_BAD_ACCESS");
	cr_expect_eq(r.thread_count, 1);
	pm_report_free(&r);
}

/* Render a report as `want`, read the rendering back through pm_read_report. */
static void
expect_dispatch(pm_format want)
{
	pm_report src, back;
	pm_read_error err = { 0 };
	pm_report_init(&src);
	cr_assert_eq(pm_read_report_file(pm_test_shared("samples/apple/lldb__asi.txt"), &src, &err), PM_OK,
	             "%s", err.message);
	char *buf = NULL;
	size_t len = 0;
	cr_assert_eq(pm_write_report_string(&src, want, &buf, &len), PM_OK);
	cr_expect_eq(pm_detect_format(buf, len), want);
	pm_report_init(&back);
	cr_assert_eq(pm_read_report(buf, len, &back, &err), PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(back.format, want);
	cr_expect_str_eq(back.exception.type, "EXC_CRASH");
	cr_expect_eq(back.thread_count, 1);
	cr_expect_eq(back.threads[0].frame_count, 15);
	if (want == PM_FORMAT_JSON) {
		/* The twin carries every fact the .ips reader produced. */
		const char *where = NULL;
		src.complete = back.complete;
		cr_expect(pmi_report_equal(&src, &back, &where), "differs at %s", where);
	}
	free(buf);
	pm_report_free(&back);
	pm_report_free(&src);
}

Test(read_detect, dispatches_json_twin_and_text)
{
	expect_dispatch(PM_FORMAT_JSON);
	expect_dispatch(PM_FORMAT_TEXT);
}

/* A report left without storage (what pm_report_init leaves when malloc fails, or a fixed
 * block too small for the arena's bookkeeping) reads as out of memory, whatever the format. */
static void
expect_nomem(const char *data, size_t len, const char *what)
{
	char tiny[8];
	pm_report r;
	pm_read_error err = { 0 };
	pmi_report_init_fixed(&r, tiny, sizeof tiny);
	cr_assert_null(r.arena);
	cr_expect_null(pm_report_alloc(&r, 1, 1));
	cr_expect_eq(pm_read_report(data, len, &r, &err), PM_E_NOMEM, "%s", what);
	pm_report_free(&r);
}

Test(read_detect, a_report_without_storage_is_out_of_memory)
{
	static const char *const samples[] = {
		"samples/apple/lldb__asi.txt",
		"samples/apple/macsymbolicator__ios-crash-in-ips-format.ips",
	};
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
		size_t len, json_len;
		char *data = pm_test_slurp(pm_test_shared(samples[i]), &len), *json = NULL;
		pm_report full;
		pm_report_init(&full);
		cr_assert_eq(pm_read_report(data, len, &full, NULL), PM_OK, "%s", samples[i]);
		cr_assert_eq(pm_write_report_string(&full, PM_FORMAT_JSON, &json, &json_len), PM_OK);
		expect_nomem(data, len, samples[i]);
		expect_nomem(json, json_len, "its JSON twin");
		free(json);
		free(data);
		pm_report_free(&full);
	}
}
