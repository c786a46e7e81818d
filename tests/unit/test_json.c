/* test_json.c — the JSON twin: AS-safe writer, reader, and their round trip. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/model/model.h"
#include "formats/json/json.h"
#include "tests/fixture_report.h"

typedef void fixture_fn(pm_report *r);

/* Big enough for every report built here. */
enum { OUT_CAP = 1 << 20 };

/* The twin of r through a buffer sink (malloc'd, NUL-terminated). */
static char *
twin(const pm_report *r, size_t *len)
{
	char *buf = malloc(OUT_CAP);
	pm_out o;
	pmi_out_init_buf(&o, buf, OUT_CAP);
	cr_assert_eq(pmi_write_json(r, &o), PM_OK);
	*len = o.len;
	return buf;
}

static char *
fixture_twin(fixture_fn *fixture, size_t *len)
{
	pm_report r;
	pm_report_init(&r);
	fixture(&r);
	char *s = twin(&r, len);
	pm_report_free(&r);
	return s;
}

static void
assert_reads_back(const pm_report *r)
{
	size_t len;
	char *s = twin(r, &len);
	pm_report back;
	pm_read_error err;
	pm_report_init(&back);
	pm_err e = pm_read_json(s, len, &back, &err);
	cr_assert_eq(e, PM_OK, "read failed at line %u: %s", err.line, err.message);
	const char *where = "";
	cr_expect(pmi_report_equal(r, &back, &where), "round trip differs at %s", where);
	pm_report_free(&back);
	free(s);
}

static void
assert_fixture_reads_back(fixture_fn *fixture)
{
	pm_report r;
	pm_report_init(&r);
	fixture(&r);
	assert_reads_back(&r);
	pm_report_free(&r);
}

/* Members after schema and schema_version, as a whole document. */
static pm_err
read_members(const char *members, pm_report *r, pm_read_error *err)
{
	char *doc = NULL;
	cr_assert(asprintf(&doc, "{\"schema\": \"postmortem\", \"schema_version\": 1%s%s}",
	                   *members ? ", " : "", members) > 0);
	pm_report_init(r);
	pm_err e = pm_read_json(doc, strlen(doc), r, err);
	free(doc);
	return e;
}

static void
expect_read_ok(const char *members, pm_report *r)
{
	pm_read_error err;
	pm_err e = read_members(members, r, &err);
	cr_assert_eq(e, PM_OK, "%s: %s", members, err.message);
}

static void
expect_error(const char *doc, pm_err want, const char *needle)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	pm_err e = pm_read_json(doc, strlen(doc), &r, &err);
	cr_expect_eq(e, want, "%s: got %s (%s)", doc, pm_strerror(e), err.message);
	cr_expect(strstr(err.message, needle) != NULL, "%s: message \"%s\" lacks \"%s\"",
	          doc, err.message, needle);
	pm_report_free(&r);
}

static void
expect_member_error(const char *members, const char *needle)
{
	char *doc = NULL;
	cr_assert(asprintf(&doc, "{\"schema\": \"postmortem\", \"schema_version\": 1, %s}", members) > 0);
	expect_error(doc, PM_E_FORMAT, needle);
	free(doc);
}

/* ---- round trips ------------------------------------------------------- */

Test(json, linux_fixture_round_trips)
{
	assert_fixture_reads_back(pm_fixture_linux_crash);
}

Test(json, arm64_fixture_round_trips)
{
	assert_fixture_reads_back(pm_fixture_arm64_apple);
}

Test(json, empty_report_round_trips)
{
	pm_report r;
	pm_report_init(&r);
	assert_reads_back(&r);
	pm_report_free(&r);
}

/* Through an fd sink with a buffer of `cap` bytes: the bytes of the buffer sink. */
static void
assert_fd_sink_matches(fixture_fn *fixture, size_t cap)
{
	size_t len;
	char *want = fixture_twin(fixture, &len);
	pm_report r;
	pm_report_init(&r);
	fixture(&r);
	char path[] = "/tmp/pm-json-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	char *buf = malloc(cap);
	pm_out o;
	pmi_out_init_fd(&o, fd, buf, cap);
	cr_assert_eq(pmi_write_json(&r, &o), PM_OK);
	close(fd);
	char *got = malloc(len + 16);
	FILE *f = fopen(path, "rb");
	size_t n = fread(got, 1, len + 16, f);
	fclose(f);
	unlink(path);
	cr_expect_eq(n, len);
	cr_expect(memcmp(got, want, len) == 0, "the fd sink wrote different bytes");
	free(got);
	free(want);
	free(buf);
	pm_report_free(&r);
}

Test(json, fd_sink_through_tiny_buffer_writes_the_same_bytes)
{
	assert_fd_sink_matches(pm_fixture_linux_crash, 64);
	assert_fd_sink_matches(pm_fixture_arm64_apple, 64);
}

/* Strings of every length up to past the writer's short-string path, plain
 * and with an escape at their start, middle or end, as keys and values. */
enum { LONGEST = 300, KINDS = 4 };
static char every_len[KINDS][LONGEST + 1][LONGEST + 1];
static pm_kv every_kv[KINDS * (LONGEST + 1)];

static void
fixture_every_length(pm_report *r)
{
	static const char esc[KINDS] = { 0, '"', '\n', '\\' };
	size_t n = 0;
	for (size_t k = 0; k < KINDS; k++) {
		for (size_t len = 0; len <= LONGEST; len++) {
			char *s = every_len[k][len];
			for (size_t i = 0; i < len; i++)
				s[i] = (char)('a' + i % 26);
			s[len] = '\0';
			if (esc[k] && len > 0)
				s[(len - 1) * k / (KINDS - 1)] = esc[k];
			every_kv[n++] = (pm_kv){ .key = s, .value = s };
		}
	}
	r->header.extra = every_kv;
	r->header.extra_count = (uint32_t)n;
}

/* The short-string and number paths write straight into the buffer when
 * they fit and byte by byte otherwise: both give the buffer sink's bytes,
 * at every fill level a flush leaves. */
Test(json, any_buffer_size_writes_the_same_bytes)
{
	static const size_t caps[] = { 1, 2, 7, 123, 124, 125, 200, 4096, 65536 };
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		assert_fd_sink_matches(fixture_every_length, caps[i]);
		assert_fd_sink_matches(pm_fixture_linux_crash, caps[i]);
		assert_fd_sink_matches(pm_fixture_arm64_apple, caps[i]);
	}
	assert_fixture_reads_back(fixture_every_length);
}

Test(json, writing_twice_gives_identical_bytes)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	size_t n1, n2;
	char *a = twin(&r, &n1), *b = twin(&r, &n2);
	cr_expect_eq(n1, n2);
	cr_expect(memcmp(a, b, n1) == 0);
	free(a);
	free(b);
	pm_report_free(&r);
}

Test(json, output_parses_with_plain_cjson)
{
	fixture_fn *fixtures[] = { pm_fixture_linux_crash, pm_fixture_arm64_apple };
	for (size_t i = 0; i < 2; i++) {
		size_t len;
		char *s = fixture_twin(fixtures[i], &len);
		cJSON *root = cJSON_ParseWithLength(s, len);
		cr_assert_not_null(root, "cJSON rejects fixture %zu near: %.40s", i, cJSON_GetErrorPtr());
		cr_expect_str_eq(cJSON_GetObjectItem(root, "schema")->valuestring, "postmortem");
		cr_expect_eq(cJSON_GetObjectItem(root, "schema_version")->valueint, PM_SCHEMA_VERSION);
		cr_expect(cJSON_IsArray(cJSON_GetObjectItem(root, "threads")));
		cJSON_Delete(root);
		free(s);
	}
}

/* ---- values ------------------------------------------------------------ */

Test(json, exact_64_bit_values_survive)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	const uint64_t big = UINT64_MAX, odd = (UINT64_C(1) << 53) + 1;
	r.threads[0].regs->reg[0].value = big;
	r.threads[0].regs->reg[1].value = odd;
	r.threads[0].frames[0].address = odd;
	r.threads[0].id = big;
	r.exception.raw_codes[0] = big;
	r.exception.raw_codes[1] = odd;
	r.exception.term_code = big;
	r.images[0].start = odd;
	r.header.pid = INT64_MIN;
	size_t len;
	char *s = twin(&r, &len);
	cr_expect(strstr(s, "\"rax\": 18446744073709551615, \"rbx\": 9007199254740993,") != NULL);
	cr_expect(strstr(s, "\"raw_codes\": [18446744073709551615, 9007199254740993]") != NULL);
	cr_expect(strstr(s, "\"pid\": -9223372036854775808") != NULL);
	assert_reads_back(&r);
	free(s);
	pm_report_free(&r);
}

Test(json, strings_are_escaped_per_rfc_8259)
{
	pm_report r;
	pm_report_init(&r);
	r.os_name = "q\"b\\n\nr\rt\tb\bf\f\x01\x1f\x7f \xc3\xa9/";
	size_t len;
	char *s = twin(&r, &len);
	cr_expect(strstr(s, "\"os_name\": \"q\\\"b\\\\n\\nr\\rt\\tb\\bf\\f\\u0001\\u001f\x7f \xc3\xa9/\"")
	          != NULL, "got: %s", s);
	free(s);
	pm_report_free(&r);
}

Test(json, every_byte_round_trips)
{
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	pm_report r;
	pm_report_init(&r);
	r.exception.message = all;
	r.header.extra = &(pm_kv){ .key = all + 100, .value = all };
	r.header.extra_count = 1;
	assert_reads_back(&r);
	pm_report_free(&r);
}

Test(json, layout_is_fixed)
{
	pm_report r;
	pm_report_init(&r);
	r.os = PM_OS_LINUX;
	r.header.pid = 7;
	r.header.time = (pm_time){ .sec = -1, .usec = 5, .tz_min = -90, .digits = 4, .set = true };
	pm_regs g = { .arch = PM_ARCH_X86_64, .count = 2,
	              .reg = { { "rax", 1 }, { "rip", 2 } } };
	pm_frame f[2] = { { .address = 16, .image = 0, .symbol = "f", .symbol_offset = 4,
	                    .has_offset = true, .how = PM_HOW_CONTEXT },
	                  { .address = 32, .image = -1 } };
	pm_thread t = { .id = 9, .crashed = true, .captured = true, .regs = &g, .frames = f,
	                .frame_count = 2 };
	r.threads = &t;
	r.thread_count = 1;
	pm_image im = { .start = 0, .size = 64, .name = "a", .build_id = { 0xab, 0xcd }, .build_id_len = 2,
	                .is_app = true };
	r.images = &im;
	r.image_count = 1;
	r.complete = true;
	size_t len;
	char *s = twin(&r, &len);
	cr_expect_str_eq(s,
		"{\n"
		"  \"schema\": \"postmortem\",\n"
		"  \"schema_version\": 1,\n"
		"  \"kind\": \"crash\",\n"
		"  \"os\": \"linux\",\n"
		"  \"header\": {\n"
		"    \"pid\": 7,\n"
		"    \"time\": {\"sec\": -1, \"usec\": 5, \"tz_min\": -90, \"digits\": 4}\n"
		"  },\n"
		"  \"exception\": {},\n"
		"  \"threads\": [\n"
		"    {\n"
		"      \"number\": 0,\n"
		"      \"id\": 9,\n"
		"      \"crashed\": true,\n"
		"      \"captured\": true,\n"
		"      \"registers\": {\n"
		"        \"arch\": \"x86_64\",\n"
		"        \"values\": {\"rax\": 1, \"rip\": 2}\n"
		"      },\n"
		"      \"frames\": [\n"
		"        {\"address\": 16, \"image\": 0, \"symbol\": \"f\", \"offset\": 4, \"how\": \"context\"},\n"
		"        {\"address\": 32}\n"
		"      ]\n"
		"    }\n"
		"  ],\n"
		"  \"images\": [\n"
		"    {\n"
		"      \"start\": 0,\n"
		"      \"size\": 64,\n"
		"      \"name\": \"a\",\n"
		"      \"code_id\": \"abcd\",\n"
		"      \"debug_id\": \"0000cdab-0000-0000-0000-000000000000\",\n"
		"      \"app\": true\n"
		"    }\n"
		"  ],\n"
		"  \"complete\": true\n"
		"}\n");
	free(s);
	pm_report_free(&r);
}

/* ---- complete ---------------------------------------------------------- */

Test(json, complete_is_the_last_member)
{
	size_t len;
	char *s = fixture_twin(pm_fixture_linux_crash, &len);
	const char *tail = ",\n  \"complete\": true\n}\n";
	cr_assert_geq(len, strlen(tail));
	cr_expect_str_eq(s + len - strlen(tail), tail);
	free(s);
}

Test(json, complete_is_absent_when_not_complete)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	r.complete = false;
	size_t len;
	char *s = twin(&r, &len);
	cJSON *root = cJSON_Parse(s);
	cr_assert_not_null(root);
	cr_expect_null(cJSON_GetObjectItem(root, "complete"));
	cJSON_Delete(root);
	assert_reads_back(&r);
	free(s);
	pm_report_free(&r);
}

/* ---- torn and hostile input -------------------------------------------- */

/* Every strict prefix loses at least the closing brace, so none may read. */
Test(json, a_twin_cut_at_any_byte_is_rejected_with_a_line)
{
	size_t len;
	char *s = fixture_twin(pm_fixture_linux_crash, &len);
	for (size_t cut = 0; cut < len; cut++) {
		pm_report r;
		pm_read_error err;
		pm_report_init(&r);
		pm_err e = pm_read_json(s, cut, &r, &err);
		if (cut == len - 1) {
			/* Only the final newline is missing: nothing was lost. */
			cr_expect_eq(e, PM_OK, "cut at %zu: %s", cut, err.message);
		} else {
			cr_expect_eq(e, PM_E_FORMAT, "cut at %zu read as %s", cut, pm_strerror(e));
			cr_expect_gt(err.line, 0, "cut at %zu: no line", cut);
		}
		pm_report_free(&r);
	}
	free(s);
}

Test(json, a_torn_twin_names_the_line_where_it_breaks)
{
	size_t len;
	char *s = fixture_twin(pm_fixture_linux_crash, &len);
	/* Cut in the middle of line 20. */
	size_t cut = 0;
	for (int line = 1; line < 20; cut++)
		if (s[cut] == '\n')
			line++;
	cut += 5;
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_expect_eq(pm_read_json(s, cut, &r, &err), PM_E_FORMAT);
	cr_expect_eq(err.line, 20);
	pm_report_free(&r);
	free(s);
}

Test(json, wrong_schema_or_version_is_refused_clearly)
{
	expect_error("", PM_E_FORMAT, "invalid JSON");
	expect_error("[1, 2]", PM_E_FORMAT, "not an object");
	expect_error("{\"schema\": \"ips\", \"schema_version\": 1}", PM_E_FORMAT,
	             "\"schema\" is not \"postmortem\"");
	expect_error("{\"schema_version\": 1}", PM_E_FORMAT, "\"schema\" is not \"postmortem\"");
	expect_error("{\"schema\": \"postmortem\"}", PM_E_FORMAT, "schema_version: missing");
	expect_error("{\"schema\": \"postmortem\", \"schema_version\": \"one\"}", PM_E_FORMAT,
	             "schema_version: missing or not an integer");
	expect_error("{\"schema\": \"postmortem\", \"schema_version\": 2}", PM_E_UNSUPPORTED,
	             "schema_version 2 is not supported");
}

Test(json, wrong_types_name_the_member)
{
	expect_member_error("\"header\": {\"pid\": \"abc\"}", "header.pid: expected an integer");
	expect_member_error("\"header\": []", "header: expected an object");
	expect_member_error("\"header\": {\"time\": {\"usec\": 1000000}}",
	                    "header.time.usec: expected an integer from 0 to 999999");
	expect_member_error("\"header\": {\"extra\": [{\"key\": 1}]}", "header.extra[0].key: expected a string");
	expect_member_error("\"threads\": {}", "threads: expected an array");
	expect_member_error("\"threads\": [{}, {\"frames\": [{}, {\"address\": \"0x10\"}]}]",
	                    "threads[1].frames[1].address: expected an integer from 0 to 18446744073709551615");
	expect_member_error("\"threads\": [{\"frames\": [{\"line\": 4294967296}]}]",
	                    "threads[0].frames[0].line: expected an integer from 0 to 4294967295");
	expect_member_error("\"threads\": [{\"registers\": {\"values\": {\"rax\": -1}}}]",
	                    "threads[0].registers.values.rax: expected an integer");
	expect_member_error("\"threads\": [{\"crashed\": \"yes\"}]", "threads[0].crashed: expected true or false");
	expect_member_error("\"images\": [{\"build_id\": \"abc\"}]", "images[0].build_id: expected an even number");
	expect_member_error("\"images\": [{\"source\": \"PS\"}]", "images[0].source: expected a one-byte string");
	expect_member_error("\"exception\": {\"asi\": [\"a\", 2]}", "exception.asi[1]: expected a string");
	expect_member_error("\"exception\": {\"signal\": 2147483648}", "exception.signal: expected an integer");
	expect_member_error("\"exception\": {\"termination\": {\"code\": 1.5}}",
	                    "exception.termination.code: expected an integer");
	expect_member_error("\"kind\": 3", "kind: expected a string");
	expect_member_error("\"complete\": \"yes\"", "complete: expected true or false");
	expect_member_error("\"threads\": [1]", "threads[0]: expected an object");
	/* Exact 64-bit parsing must not blur numbers and strings either way. */
	expect_member_error("\"header\": {\"pid\": \"42\"}", "header.pid: expected an integer");
	expect_member_error("\"header\": {\"process_name\": 12345678901234567}",
	                    "header.process_name: expected a string");
}

Test(json, absent_null_and_unknown_members_read_as_unknown)
{
	pm_report r;
	expect_read_ok("\"os\": \"plan9\", \"kind\": null, \"future\": {\"x\": [1, 2]}, "
	               "\"header\": {\"pid\": null}, "
	               "\"threads\": [null, {\"registers\": {\"arch\": \"mips\"}, \"frames\": [{\"how\": \"magic\"}]}]",
	               &r);
	cr_expect_eq(r.os, PM_OS_UNKNOWN);
	cr_expect_eq(r.kind, PM_KIND_CRASH);
	cr_expect_eq(r.header.pid, -1);
	cr_expect_eq(r.thread_count, 2);
	cr_expect_eq(r.threads[1].regs->arch, PM_ARCH_UNKNOWN);
	cr_expect_eq(r.threads[1].frames[0].how, PM_HOW_UNKNOWN);
	cr_expect_eq(r.threads[1].frames[0].image, -1);
	cr_expect_not(r.complete);
	pm_report_free(&r);
}

/* The fuzzer's property on hand-picked corner cases: what reads, writes back losslessly. */
Test(json, odd_but_valid_twins_write_back_losslessly)
{
	const char *cases[] = {
		"\"threads\": [{\"registers\": {\"values\": {\"rax\": 1, \"rax\": 2, \"\": 3, \"a\\u0000b\": 4}}}]",
		"\"exception\": {\"asi\": [null, \"\", \"x\"], \"termination\": {\"reasons\": [null]}}",
		"\"header\": {\"extra\": [{}, null, {\"key\": \"k\"}], \"time\": {}}",
		"\"images\": [{\"source\": \"\\u0001\", \"build_id\": \"\"}, {\"source\": \"\x80\", \"build_id\": \"ABcd\"}]",
		"\"threads\": [{\"frames\": [null, {\"image\": null, \"offset\": 0, \"line\": 0}]}]",
		"\"threads\": [{\"registers\": {}}], \"last_exception_backtrace\": [{}]",
		"\"header\": {\"pid\": 9007199254740993, \"parent_pid\": -2, \"time\": {\"sec\": -9223372036854775808}}",
		"\"exception\": {\"si_code\": 0, \"signal\": 0, \"triggered_thread\": -1, \"raw_codes\": [0]}",
		"\"kind\": \"hang\", \"os\": \"darwin\", \"complete\": 1, \"os_name\": \"\\ud83d\\udca5\"",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pm_report r;
		expect_read_ok(cases[i], &r);
		assert_reads_back(&r);
		pm_report_free(&r);
	}
}

Test(json, out_of_range_image_indices_are_dropped)
{
	pm_report r;
	expect_read_ok("\"images\": [{\"name\": \"a\"}], "
	               "\"threads\": [{\"frames\": [{\"image\": 0}, {\"image\": 1}, {\"image\": -5}]}], "
	               "\"last_exception_backtrace\": [{\"image\": 99999999999}], "
	               "\"exception\": {\"triggered_thread\": 1}", &r);
	cr_expect_eq(r.threads[0].frames[0].image, 0);
	cr_expect_eq(r.threads[0].frames[1].image, -1);
	cr_expect_eq(r.threads[0].frames[2].image, -1);
	cr_expect_eq(r.last_exception_backtrace[0].image, -1);
	/* A thread number, kept though no listed thread has it: no thread is the crashed one. */
	cr_expect_eq(r.exception.triggered_thread, 1);
	cr_expect_eq(pm_report_crashed_thread(&r), -1);
	pm_report_free(&r);
}

Test(json, a_negative_or_huge_triggered_thread_is_dropped)
{
	pm_report r;
	expect_read_ok("\"exception\": {\"triggered_thread\": -2}", &r);
	cr_expect_eq(r.exception.triggered_thread, -1);
	pm_report_free(&r);
	expect_read_ok("\"exception\": {\"triggered_thread\": 4294967296}", &r);
	cr_expect_eq(r.exception.triggered_thread, -1);
	pm_report_free(&r);
}

Test(json, thread_numbers_default_to_positions)
{
	pm_report r;
	expect_read_ok("\"threads\": [{}, {\"number\": 7, \"attributed\": true}, {}], "
	               "\"exception\": {\"triggered_thread\": 7, \"highlighted\": true}", &r);
	cr_assert_eq(r.thread_count, 3);
	cr_expect_eq(r.threads[0].number, 0, "a twin written before numbers: the position");
	cr_expect_eq(r.threads[1].number, 7);
	cr_expect(r.threads[1].attributed);
	cr_expect_eq(r.threads[2].number, 2);
	cr_expect(r.exception.highlighted);
	cr_expect_eq(pm_report_crashed_thread(&r), 1);
	assert_reads_back(&r);
	pm_report_free(&r);
}

Test(json, capacities_keep_the_first_elements)
{
	/* 60 registers, one with a name too long for the model. */
	char regs[2048] = "\"threads\": [{\"registers\": {\"values\": {\"longname8\": 7";
	for (int i = 0; i < 60; i++)
		sprintf(regs + strlen(regs), ", \"r%d\": %d", i, i);
	strcat(regs, "}}}], \"exception\": {\"raw_codes\": [1, 2, 3, 4, 5, 6]}, "
	             "\"images\": [{\"build_id\": \"");
	for (int i = 0; i < PM_BUILD_ID_MAX + 4; i++)
		strcat(regs, "a5");
	strcat(regs, "\"}]");
	pm_report r;
	expect_read_ok(regs, &r);
	const pm_regs *g = r.threads[0].regs;
	cr_expect_eq(g->count, PM_MAX_REGS);
	cr_expect_str_eq(g->reg[0].name, "r0");
	cr_expect_str_eq(g->reg[PM_MAX_REGS - 1].name, "r47");
	cr_expect_eq(g->reg[PM_MAX_REGS - 1].value, 47);
	cr_expect_eq(r.exception.raw_code_count, 4);
	cr_expect_eq(r.exception.raw_codes[3], 4);
	cr_expect_eq(r.images[0].build_id_len, PM_BUILD_ID_MAX);
	pm_report_free(&r);
}

Test(json, millions_of_threads_are_capped)
{
	const size_t n = 1000000;
	char *doc = malloc(n * 3 + 128);
	char *p = doc + sprintf(doc, "\"threads\": [{\"id\": 1}");
	for (size_t i = 1; i < n; i++) {
		memcpy(p, ",{}", 3);
		p += 3;
	}
	strcpy(p, "], \"threads_truncated\": false");
	pm_report r;
	expect_read_ok(doc, &r);
	cr_expect_eq(r.thread_count, 4096);
	cr_expect(r.threads_truncated);
	cr_expect_eq(r.threads[0].id, 1);
	pm_report_free(&r);
	free(doc);
}

Test(json, deep_nesting_is_refused_without_crashing)
{
	const size_t depth = 100000;
	char *doc = malloc(2 * depth + 128);
	char *p = doc + sprintf(doc, "\"future\": ");
	memset(p, '[', depth);
	memset(p + depth, ']', depth);
	p[2 * depth] = '\0';
	pm_report r;
	pm_read_error err;
	cr_expect_eq(read_members(doc, &r, &err), PM_E_FORMAT);
	pm_report_free(&r);
	free(doc);
}

Test(json, oversized_input_is_refused)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_expect_eq(pm_read_json("{}", (size_t)PM_READ_MAX_BYTES + 1, &r, &err), PM_E_LIMIT);
	pm_report_free(&r);
}

/* ---- sinks ------------------------------------------------------------- */

Test(json, a_small_buffer_reports_limit_and_stays_in_bounds)
{
	size_t len;
	char *want = fixture_twin(pm_fixture_linux_crash, &len);
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	size_t caps[] = { 1, 2, 17, 100, len / 2, len - 1, len };
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		size_t cap = caps[i];
		char *buf = malloc(cap + 32);
		memset(buf, 'Z', cap + 32);
		pm_out o;
		pmi_out_init_buf(&o, buf, cap);
		cr_expect_eq(pmi_write_json(&r, &o), PM_E_LIMIT, "cap %zu", cap);
		cr_expect_eq(buf[cap - 1], '\0', "cap %zu: not terminated", cap);
		cr_expect(memcmp(buf, want, cap - 1) == 0, "cap %zu: not a prefix", cap);
		for (size_t k = cap; k < cap + 32; k++)
			cr_expect_eq(buf[k], 'Z', "cap %zu: byte %zu written", cap, k);
		free(buf);
	}
	pm_report_free(&r);
	free(want);
}

/* At crash time an arena may run out after a count was set: write what exists. */
Test(json, a_count_without_its_array_writes_nothing)
{
	pm_report r;
	pm_report_init(&r);
	r.thread_count = 3;
	r.image_count = 2;
	r.leb_count = 1;
	r.exception.asi_count = 4;
	r.header.extra_count = 5;
	size_t len;
	char *s = twin(&r, &len);
	cJSON *root = cJSON_Parse(s);
	cr_assert_not_null(root);
	cr_expect_null(cJSON_GetObjectItem(root, "threads"));
	cr_expect_null(cJSON_GetObjectItem(root, "images"));
	cr_expect_null(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "exception"), "asi"));
	cJSON_Delete(root);
	free(s);
	pm_report_free(&r);
}

Test(json, a_failing_fd_reports_io)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	int fd = open("/dev/null", O_RDONLY);
	cr_assert(fd >= 0);
	char buf[64];
	pm_out o;
	pmi_out_init_fd(&o, fd, buf, sizeof buf);
	cr_expect_eq(pmi_write_json(&r, &o), PM_E_IO);
	close(fd);
	pm_report_free(&r);
}
