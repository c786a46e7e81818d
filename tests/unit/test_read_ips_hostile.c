/*
 * test_read_ips_hostile.c — the .ips reader on broken and malicious input:
 * it must fail with a message naming the line, or cap what it keeps, and
 * never crash, hang or read out of bounds (run it under ASan too).
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ips/read_ips.h"
#include "postmortem-tools.h"
#include "tests/util.h"

static const char META[] = "{\"app_name\":\"x\",\"bug_type\":\"309\"}\n";

static pm_err
read_ips(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	memset(err, 0, sizeof *err);
	pm_report_init(r);
	return pm_read_ips(data, len, r, err);
}

/* Read and discard; the error code. */
static pm_err
try_read(const char *data, size_t len, pm_read_error *err)
{
	pm_report r;
	pm_err e = read_ips(data, len, &r, err);
	pm_report_free(&r);
	return e;
}

/* Every proper prefix of a sample up to its closing brace fails with a message. */
static void
truncate_everywhere(const char *rel)
{
	size_t len;
	char *full = pm_test_slurp(pm_test_shared("%s", rel), &len);
	size_t last = (size_t)(strrchr(full, '}') - full);
	pm_read_error err;
	for (size_t n = 0; n <= last; n++) {
		char *copy = malloc(n ? n : 1);
		memcpy(copy, full, n);
		pm_err e = try_read(copy, n, &err);
		free(copy);
		cr_assert_eq(e, PM_E_FORMAT, "%s cut at %zu: got %s", rel, n, pm_strerror(e));
		cr_assert(err.message[0] != '\0', "%s cut at %zu: no message", rel, n);
		cr_assert(err.line >= 1, "%s cut at %zu: no line", rel, n);
	}
	cr_expect_eq(try_read(full, len, &err), PM_OK, "%s", err.message);
	free(full);
}

Test(read_ips_hostile, truncated_monterey, .timeout = 120)
{
	truncate_everywhere("samples/apple/pycrashreport__user_mode_crash_report_monterey_non_symbolicated.ips");
}

Test(read_ips_hostile, truncated_example_e, .timeout = 120)
{
	truncate_everywhere("docs/examples/E_ios_sigtrap.ips");
}

/* META then the body printed from fmt (malloc'd). */
static char *
ips(size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *body = NULL;
	cr_assert(vasprintf(&body, fmt, ap) >= 0);
	va_end(ap);
	char *out = NULL;
	int n = asprintf(&out, "%s%s", META, body);
	cr_assert(n >= 0);
	free(body);
	*len = (size_t)n;
	return out;
}

/* `count` copies of item joined by commas (malloc'd). */
static char *
repeat(const char *item, size_t count)
{
	size_t n = strlen(item);
	char *out = malloc(count * (n + 1) + 1);
	char *p = out;
	for (size_t i = 0; i < count; i++) {
		memcpy(p, item, n);
		p += n;
		*p++ = ',';
	}
	p[count ? -1 : 0] = '\0';
	return out;
}

Test(read_ips_hostile, deep_nesting_fails_with_a_line)
{
	size_t depth = 100000;
	char *deep = malloc(depth + 1);
	memset(deep, '[', depth);
	deep[depth] = '\0';
	size_t len;
	char *data = ips(&len, "{\n\"threads\" :\n%s", deep);
	pm_read_error err;
	cr_expect_eq(try_read(data, len, &err), PM_E_FORMAT);
	cr_expect_geq(err.line, 3, "line %u: %s", err.line, err.message);
	free(data);
	free(deep);
	/* The same in the metadata line: {"a":{"a":... */
	char *meta = repeat("{\"a\":", 10000);
	cr_expect_eq(try_read(meta, strlen(meta), &err), PM_E_FORMAT);
	cr_expect_eq(err.line, 1);
	free(meta);
}

Test(read_ips_hostile, syntax_error_names_the_body_line)
{
	size_t len;
	char *data = ips(&len, "{\n  \"procName\" : \"a\",\n  \"pid\" : 12,\n  \"oops\" ;\n}\n");
	pm_read_error err;
	cr_expect_eq(try_read(data, len, &err), PM_E_FORMAT);
	cr_expect_eq(err.line, 5, "line %u: %s", err.line, err.message);
	free(data);
}

Test(read_ips_hostile, garbage_and_nul_bytes)
{
	pm_read_error err;
	uint32_t seed = 12345;
	char buf[4096];
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(round * 7 % (int)sizeof buf);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (char)(seed >> 16);
		}
		if (round % 2)
			memcpy(buf, META, n < sizeof META - 1 ? n : sizeof META - 1);
		/* A text body goes to the text reader, which may accept it; only a failure must explain itself. */
		if (try_read(buf, n, &err) != PM_OK)
			cr_assert(err.message[0] != '\0', "round %d: no message", round);
	}
	static const char nul_line1[] = "{\"bug_type\":\"309\"\0}\n{}";
	cr_expect_eq(try_read(nul_line1, sizeof nul_line1 - 1, &err), PM_E_FORMAT);
	static const char nul_body[] = "{\"bug_type\":\"309\"}\n{\"procName\":\"a\0b\", \0}";
	cr_expect_eq(try_read(nul_body, sizeof nul_body - 1, &err), PM_E_FORMAT);
	cr_expect_eq(err.line, 2);
	cr_expect_eq(try_read("{\"bug_type\":\"309\"}\n{}", 21, &err), PM_E_FORMAT);
	cr_expect_eq(try_read("[1,2]\n{}", 8, &err), PM_E_FORMAT);
	cr_expect_eq(pm_read_ips(META, sizeof META - 1, NULL, &err), PM_E_INVAL);
	/* The limit is checked before a byte is read. */
	cr_expect_eq(try_read(META, PM_READ_MAX_BYTES + 1u, &err), PM_E_LIMIT);
}

Test(read_ips_hostile, absurd_numbers_stay_in_bounds)
{
	size_t len;
	char *data = ips(&len,
		"{\"procName\":\"a\",\"pid\":-5,\"faultingThread\":1099511627776,"
		"\"exception\":{\"rawCodes\":[1,2,3,4,5,6,7,8,9,10],\"type\":\"EXC_BAD_ACCESS\",\"signal\":\"SIGNOPE\"},"
		"\"termination\":{\"code\":18446744073709551616,\"flags\":4294967296},"
		"\"usedImages\":[{\"base\":18446744073709551615,\"size\":-4096,\"uuid\":\"zz\"}],"
		"\"threads\":[{\"frames\":["
		"{\"imageIndex\":9223372036854775808,\"imageOffset\":77},"
		"{\"imageIndex\":-1,\"imageOffset\":1},"
		"{\"imageIndex\":1e300,\"imageOffset\":1.5},"
		"{\"imageIndex\":0,\"imageOffset\":2,\"sourceLine\":1099511627776},"
		"\"not a frame\"],"
		"\"threadState\":{\"flavor\":\"ARM_THREAD_STATE64\",\"x\":[%s],\"pc\":{\"value\":-1}}}]}",
		"{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},"
		"{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},"
		"{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},"
		"{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},"
		"{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},"
		"{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1},{\"value\":1}");
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_ips(data, len, &r, &err), PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(r.header.pid, -5);
	cr_expect_eq(r.exception.triggered_thread, -1);
	cr_expect_eq(r.exception.raw_code_count, 4);
	cr_expect_eq(r.exception.signal, 0);
	cr_expect_not(r.exception.has_term_code);
	cr_expect_eq(r.exception.term_flags, 0);
	cr_expect_eq(r.images[0].size, 0);
	cr_expect_eq(r.images[0].build_id_len, 0);
	cr_assert_eq(r.thread_count, 1);
	const pm_thread *t = &r.threads[0];
	cr_assert_eq(t->frame_count, 5);
	cr_expect_eq(t->frames[0].image, -1);
	cr_expect_eq(t->frames[0].address, 77);
	cr_expect_eq(t->frames[1].image, -1);
	cr_expect_eq(t->frames[2].image, -1);
	cr_expect_eq(t->frames[3].image, 0);
	cr_expect_eq(t->frames[3].address, 1, "base + offset wraps like the hardware");
	cr_expect_eq(t->frames[3].line, 0);
	cr_expect_eq(t->frames[4].image, -1);
	cr_assert_not_null(t->regs);
	cr_expect_eq(t->regs->count, 29, "at most x0..x28; a negative pc is dropped");
	pm_report_free(&r);
	free(data);
}

Test(read_ips_hostile, huge_counts_are_capped, .timeout = 120)
{
	char *threads = repeat("{}", 1000000);
	char *frames = repeat("{\"imageIndex\":0,\"imageOffset\":1}", 100000);
	char *images = repeat("{\"base\":4096,\"size\":4096}", PM_IPS_MAX_IMAGES + 10);
	size_t len;
	char *data = ips(&len, "{\"threads\":[{\"frames\":[%s]},%s],\"usedImages\":[%s],"
	                 "\"lastExceptionBacktrace\":[%s]}", frames, threads, images, frames);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_ips(data, len, &r, &err), PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(r.thread_count, PM_IPS_MAX_THREADS);
	cr_expect(r.threads_truncated);
	cr_expect_eq(r.threads[0].frame_count, PM_IPS_MAX_FRAMES);
	cr_expect(r.threads[0].frames_truncated);
	cr_expect_eq(r.threads[0].frames[5].address, 4097);
	cr_expect_not(r.threads[1].frames_truncated);
	cr_expect_eq(r.image_count, PM_IPS_MAX_IMAGES);
	cr_expect(r.images_truncated);
	cr_expect_eq(r.leb_count, PM_IPS_MAX_FRAMES);
	pm_report_free(&r);
	free(data);
	free(threads);
	free(frames);
	free(images);
}

Test(read_ips_hostile, wrong_member_types_are_ignored)
{
	size_t len;
	char *data = ips(&len,
		"{\"procName\":7,\"pid\":\"x\",\"incident\":{},\"threads\":{\"a\":1},\"usedImages\":\"no\","
		"\"exception\":[1],\"termination\":{\"reasons\":[1,{},\"kept\"]},"
		"\"asi\":{\"a\":{\"b\":[\"deep\"]},\"c\":[\"one\",2]},\"asiBacktraces\":[3,\"l1\\nl2\\n\"],"
		"\"osVersion\":\"17\",\"bundleInfo\":[],\"captureTime\":\"2022-13-45 99:99:99 +9999\"}");
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_ips(data, len, &r, &err), PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(r.thread_count, 0);
	cr_expect_eq(r.image_count, 0);
	cr_expect_null(r.exception.type);
	cr_expect_eq(r.header.pid, -1);
	cr_expect_not(r.header.time.set);
	cr_assert_eq(r.exception.term_reason_count, 1);
	cr_expect_str_eq(r.exception.term_reasons[0], "kept");
	cr_assert_eq(r.exception.asi_count, 4);
	cr_expect_str_eq(r.exception.asi[0], "one");
	cr_expect_str_eq(r.exception.asi[1], "Application Specific Backtrace 0:");
	cr_expect_str_eq(r.exception.asi[3], "l2");
	/* The metadata line names the process when the body's name is not a string. */
	cr_expect_str_eq(r.header.process_name, "x");
	pm_report_free(&r);
	free(data);
}
