/*
 * test_group.c — a report's crash group (formats/group, docs/grouping.md) on
 * report models built in code, and on reports written before there were
 * groups: the committed golden reports, the sample reports and the shared
 * Apple samples.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/group/group.h"
#include "postmortem-tools.h"
#include "util.h"

#define APP_START UINT64_C(0x555500000000)
#define LIB_START UINT64_C(0x7f0000000000)

typedef struct fspec {
	int32_t image;       /* 0 the app, 1 libc (a system library), 2 the app's own library, -1 none */
	const char *symbol;
	bool inlined;
} fspec;

static void *
alloc(pm_report *r, size_t n)
{
	void *p = pm_report_alloc(r, n, 16);
	cr_assert_not_null(p);
	return p;
}

/* A crash of `signal` in process "crasher" (loaded at app_start) with one crashed thread. */
static void
build(pm_report *r, const char *signal, uint64_t app_start, const fspec *f, uint32_t n)
{
	pm_report_init(r);
	r->os = PM_OS_LINUX;
	r->header.process_name = "crasher";
	r->header.process_path = "/opt/crasher/bin/crasher";
	r->exception.type = "EXC_BAD_ACCESS";
	r->exception.signal_name = signal;
	r->exception.triggered_thread = 0;
	r->images = alloc(r, 3 * sizeof *r->images);
	r->image_count = 3;
	r->images[0] = (pm_image){ .start = app_start, .size = 0x10000, .name = "crasher",
		                   .path = "/opt/crasher/bin/crasher", .is_app = true };
	r->images[1] = (pm_image){ .start = LIB_START, .size = 0x200000, .name = "libc.so.6",
		                   .path = "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	r->images[2] = (pm_image){ .start = LIB_START + 0x400000, .size = 0x10000, .name = "libcrasher.so.1",
		                   .path = "/opt/crasher/lib/libcrasher.so.1" };
	r->threads = alloc(r, sizeof *r->threads);
	r->thread_count = 1;
	pm_thread *t = &r->threads[0];
	*t = (pm_thread){ .crashed = true, .captured = true, .frames = alloc(r, (n + 1) * sizeof *t->frames),
		          .frame_count = n };
	for (uint32_t i = 0; i < n; i++) {
		uint64_t base = f[i].image == 0 ? app_start : f[i].image == 1 ? LIB_START : LIB_START + 0x400000;
		t->frames[i] = (pm_frame){ .address = f[i].image < 0 ? 0x1234 : base + 0x1000 + 0x40 * i,
			                   .image = f[i].image, .symbol = f[i].symbol, .inlined = f[i].inlined,
			                   .has_offset = f[i].symbol != NULL };
	}
}

typedef struct grp {
	char sig[PM_SIGNATURE_LEN + 1];
	char title[PM_TITLE_MAX];
} grp;

static grp
group_of(const fspec *f, uint32_t n)
{
	pm_report r;
	build(&r, "SIGSEGV", APP_START, f, n);
	grp g;
	pm_report_group(&r, g.sig, g.title);
	cr_assert(pmi_group_signature_valid(g.sig), "%s", g.sig);
	pm_report_free(&r);
	return g;
}

#define GROUP(...) group_of((const fspec[]){ __VA_ARGS__ }, sizeof((const fspec[]){ __VA_ARGS__ }) / sizeof(fspec))

Test(group, the_crash_machinery_is_passed)
{
	grp plain = GROUP({ 0, "fail_hard", false }, { 0, "main", false }, { 1, "__libc_start_call_main", false });
	grp via_abort = GROUP({ 1, "__pthread_kill_implementation", false }, { 1, "__GI_raise", false }, { 1, "abort", false },
	                      { 0, "fail_hard", false }, { 0, "main", false }, { 1, "__libc_start_main", false }, { 0, "_start", false });
	cr_expect_str_eq(plain.sig, via_abort.sig);
	cr_expect_str_eq(via_abort.title, "SIGSEGV in fail_hard");
	/* Statically linked runtime code in the app is passed by name too. */
	grp static_abort = GROUP({ 0, "raise", false }, { 0, "abort", false }, { 0, "fail_hard", false }, { 0, "main", false });
	cr_expect_str_eq(plain.sig, static_abort.sig);
}

Test(group, names_as_any_reader_gives_them)
{
	grp mangled = GROUP({ 0, "_ZN2ns6Parser6headerEPKc", false }, { 0, "main", false });
	grp demangled = GROUP({ 0, "ns::Parser::header(char const*)", false }, { 0, "main", false });
	grp clone = GROUP({ 0, "_ZN2ns6Parser6headerEPKc.isra.0", false }, { 0, "main", false });
	cr_expect_str_eq(mangled.sig, demangled.sig);
	cr_expect_str_eq(mangled.sig, clone.sig);
	cr_expect_str_eq(mangled.title, "SIGSEGV in ns::Parser::header");
	/* DWARF's inlined frames come on top of the frame they were inlined into. */
	grp inlined = GROUP({ 0, "ns::read_byte(char const*)", true }, { 0, "ns::Parser::header(char const*)", false },
	                    { 0, "main", false });
	cr_expect_str_eq(mangled.sig, inlined.sig);
}

Test(group, system_libraries_count_only_without_the_apps_own_frames)
{
	grp own = GROUP({ 0, "parse_header", false }, { 0, "main", false });
	grp named = GROUP({ 1, "__strlen_avx2", false }, { 0, "parse_header", false }, { 0, "main", false });
	grp unnamed = GROUP({ 1, NULL, false }, { 0, "parse_header", false }, { 0, "main", false });
	cr_expect_str_eq(own.sig, named.sig, "a debug package installed or not");
	cr_expect_str_eq(own.sig, unnamed.sig);
	cr_expect_str_eq(named.title, "SIGSEGV in strlen from parse_header");
	cr_expect_str_eq(unnamed.title, "SIGSEGV in parse_header");
	/* The app's own libraries are its own code. */
	grp lib = GROUP({ 2, "crasher_parse", false }, { 0, "main", false });
	cr_expect_str_neq(lib.sig, own.sig);
	cr_expect_str_eq(lib.title, "SIGSEGV in crasher_parse");
	/* Nothing of the app's own: the system's frames, by name. */
	grp sys1 = GROUP({ 1, "__memcpy_evex", false }, { 1, "worker_loop", false });
	grp sys2 = GROUP({ 1, "__memcpy_avx_unaligned_erms", false }, { 1, "worker_loop", false });
	grp sys3 = GROUP({ 1, "__memmove_evex", false }, { 1, "worker_loop", false });
	cr_expect_str_eq(sys1.sig, sys2.sig, "another CPU's variant");
	cr_expect_str_neq(sys1.sig, sys3.sig);
	cr_expect_str_eq(sys1.title, "SIGSEGV in memcpy");
}

Test(group, sites_apart)
{
	grp a = GROUP({ 0, "site_a", false }, { 0, "main", false });
	grp b = GROUP({ 0, "site_b", false }, { 0, "main", false });
	grp deeper = GROUP({ 0, "site_a", false }, { 0, "caller", false }, { 0, "main", false });
	cr_expect_str_neq(a.sig, b.sig);
	cr_expect_str_neq(a.sig, deeper.sig, "the callers are part of the site");
	/* Three frames: what is deeper does not count. */
	grp x = GROUP({ 0, "f", false }, { 0, "g", false }, { 0, "h", false }, { 0, "main", false });
	grp y = GROUP({ 0, "f", false }, { 0, "g", false }, { 0, "h", false }, { 0, "other_main", false });
	cr_expect_str_eq(x.sig, y.sig);
}

/* Without a name: the offset into its image, which ASLR does not move. */
Test(group, unnamed_frames_by_offset)
{
	fspec f[] = { { 0, NULL, false }, { 0, "main", false } };
	pm_report one, two;
	build(&one, "SIGSEGV", APP_START, f, 2);
	build(&two, "SIGSEGV", APP_START + 0x7000000, f, 2);
	grp a, b;
	pm_report_group(&one, a.sig, a.title);
	pm_report_group(&two, b.sig, b.title);
	cr_expect_str_eq(a.sig, b.sig);
	cr_expect_str_eq(a.title, "SIGSEGV in crasher+0x1000 from main", "the first named frame of its own too");
	two.threads[0].frames[0].address += 0x10;
	pm_report_group(&two, b.sig, b.title);
	cr_expect_str_neq(a.sig, b.sig, "another place in the function");
	/* No image at all (a call through NULL): "?". */
	fspec nf[] = { { -1, NULL, false }, { 0, "call_null", false }, { 0, "main", false } };
	grp n = group_of(nf, 3);
	cr_expect_str_eq(n.title, "SIGSEGV in ??? from call_null");
	pm_report_free(&one);
	pm_report_free(&two);
}

Test(group, exception_alone)
{
	pm_report r;
	build(&r, "SIGILL", APP_START, NULL, 0);
	grp a, b;
	pm_report_group(&r, a.sig, a.title);
	cr_expect_str_eq(a.title, "SIGILL in crasher");
	r.header.process_name = "other";
	pm_report_group(&r, b.sig, b.title);
	cr_expect_str_neq(a.sig, b.sig, "two programs");
	r.exception.signal_name = "SIGBUS";
	pm_report_group(&r, a.sig, a.title);
	cr_expect_str_neq(a.sig, b.sig, "two signals");
	r.thread_count = 0;
	r.header.process_name = NULL;
	r.exception.signal_name = NULL;
	r.exception.type = NULL;
	pm_report_group(&r, a.sig, a.title);
	cr_expect(pmi_group_signature_valid(a.sig));
	cr_expect_str_eq(a.title, "Crash");
	pm_report_free(&r);
}

Test(group, the_exception_type_and_the_kind)
{
	fspec f[] = { { 1, "abort", false }, { 1, "__cxa_throw", false }, { 0, "_ZN3app4loadEv", false }, { 0, "main", false } };
	pm_report r;
	build(&r, "SIGABRT", APP_START, f, 4);
	grp plain, runtime, logic, demangled;
	pm_report_group(&r, plain.sig, plain.title);
	const char *asi[] = { "terminating due to uncaught exception of type _ZSt13runtime_error: boom" };
	r.exception.asi = asi;
	r.exception.asi_count = 1;
	pm_report_group(&r, runtime.sig, runtime.title);
	asi[0] = "terminating due to uncaught exception of type _ZSt11logic_error: boom";
	pm_report_group(&r, logic.sig, logic.title);
	asi[0] = "terminating due to uncaught exception of type std::runtime_error: boom";
	pm_report_group(&r, demangled.sig, demangled.title);
	cr_expect_str_eq(plain.title, "SIGABRT in app::load");
	cr_expect_str_eq(runtime.title, "std::runtime_error in app::load");
	cr_expect_str_eq(logic.title, "std::logic_error in app::load");
	cr_expect_str_neq(plain.sig, runtime.sig);
	cr_expect_str_neq(runtime.sig, logic.sig);
	cr_expect_str_eq(runtime.sig, demangled.sig);
	/* A hang is one whether the watchdog killed the process or not; the .crash text tells it
	 * by the watchdog's termination namespace. */
	r.exception.asi_count = 0;
	r.kind = PM_KIND_HANG;
	grp hang_json, hang_text;
	pm_report_group(&r, hang_json.sig, hang_json.title);
	r.kind = PM_KIND_CRASH;
	r.exception.term_namespace = "WATCHDOG";
	r.exception.signal_name = "SIGKILL";
	pm_report_group(&r, hang_text.sig, hang_text.title);
	cr_expect_str_eq(hang_json.sig, hang_text.sig);
	cr_expect_str_eq(hang_json.title, "Hang in app::load");
	pm_report_free(&r);
}

Test(group, carried_or_computed)
{
	fspec f[] = { { 0, "site_a", false }, { 0, "main", false } };
	pm_report r;
	build(&r, "SIGSEGV", APP_START, f, 2);
	grp computed, got;
	pm_report_group(&r, computed.sig, computed.title);
	r.signature = "0123456789abcdef";
	r.title = "carried\ttitle";
	pm_report_group(&r, got.sig, got.title);
	cr_expect_str_eq(got.sig, "0123456789abcdef");
	cr_expect_str_eq(got.title, "carried?title", "control characters are not shown");
	r.title = NULL;
	pm_report_group(&r, got.sig, got.title);
	cr_expect_str_eq(got.title, computed.title);
	static const char *const bad[] = { "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0", "",
		                           "0123456789abcdeg" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		r.signature = bad[i];
		r.title = "forged";
		pm_report_group(&r, got.sig, got.title);
		cr_expect_str_eq(got.sig, computed.sig, "'%s' is not a signature", bad[i]);
		cr_expect_str_eq(got.title, computed.title);
	}
	pm_report_free(&r);
}

/* A title is cut at a character's start, never inside one. */
Test(group, long_titles)
{
	char name[400];
	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	memcpy(name + 140, "\xc3\xa9\xc3\xa9\xc3\xa9", 6);
	fspec f[] = { { 0, name, false }, { 0, "main", false } };
	grp g = group_of(f, 2);
	size_t n = strlen(g.title);
	cr_expect_lt(n, PM_TITLE_MAX);
	cr_expect(n == 0 || ((unsigned char)g.title[n - 1] & 0xc0) != 0xc0, "ends inside a character");
	cr_expect((unsigned char)g.title[n - 1] < 0x80 || ((unsigned char)g.title[n - 2] & 0xe0) == 0xc0);
}

/* ---- reports written before: computed on read, the same from either file ----------- */

static void
read_file(const char *path, pm_report *r)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
	cr_assert_eq(pm_read_report_file(path, r, &err), PM_OK, "%s: line %u: %s", path, err.line, err.message);
}

static void
expect_twins_agree(const char *crash, const char *json)
{
	pm_report t, j;
	read_file(crash, &t);
	read_file(json, &j);
	cr_expect_null(j.signature, "%s was written before there were groups", json);
	grp a, b;
	pm_report_group(&t, a.sig, a.title);
	pm_report_group(&j, b.sig, b.title);
	cr_expect_str_eq(a.sig, b.sig, "%s and its twin", crash);
	cr_expect_str_eq(a.title, b.title, "%s and its twin", crash);
	cr_expect_neq(strlen(a.title), 0);
	pm_report_free(&t);
	pm_report_free(&j);
}

Test(group, reports_written_before)
{
	static const char *const golden[] = { "linux_crash", "many", "arm64_apple" };
	for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
		char crash[64], json[64];
		snprintf(crash, sizeof crash, "tests/golden/%s.crash", golden[i]);
		snprintf(json, sizeof json, "tests/golden/%s.json", golden[i]);
		expect_twins_agree(pm_test_source("%s", crash), pm_test_source("%s", json));
	}
	expect_twins_agree(pm_test_source("sample_crashes/reports/sigsegv_null_deref.crash"),
	                   pm_test_source("sample_crashes/reports/sigsegv_null_deref.json"));
	expect_twins_agree(pm_test_source("sample_crashes/reports/watchdog_0x8badf00d.crash"),
	                   pm_test_source("sample_crashes/reports/watchdog_0x8badf00d.json"));
	pm_report r;
	read_file(pm_test_source("sample_crashes/reports/sigsegv_null_deref.json"), &r);
	grp g;
	pm_report_group(&r, g.sig, g.title);
	cr_expect_str_eq(g.title, "SIGSEGV in crash_null_deref");
	pm_report_free(&r);
	read_file(pm_test_source("sample_crashes/reports/watchdog_0x8badf00d.json"), &r);
	pm_report_group(&r, g.sig, g.title);
	cr_expect_str_eq(g.title, "Hang in clock_nanosleep from block_main_loop");
	pm_report_free(&r);
}

/* Other tools' reports (the shared Apple samples, KSCrash's JSON): each gets a group, the
 * same at every reading. */
Test(group, shared_samples)
{
	static const char *const dirs[] = { "samples/apple", "samples/kscrash-json" };
	size_t seen = 0;
	for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s", pm_test_shared("%s", dirs[k]));
		DIR *d = opendir(dir);
		cr_assert_not_null(d, "%s", dir);
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' || strstr(e->d_name, ".md"))
				continue;
			char path[8192];
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			pm_report r;
			pm_report_init(&r);
			if (pm_read_report_file(path, &r, NULL) != PM_OK) {
				pm_report_free(&r);
				continue;
			}
			grp a, b;
			pm_report_group(&r, a.sig, a.title);
			pm_report_group(&r, b.sig, b.title);
			cr_expect(pmi_group_signature_valid(a.sig), "%s", path);
			cr_expect_neq(strlen(a.title), 0, "%s", path);
			cr_expect_str_eq(a.sig, b.sig);
			cr_expect_str_eq(a.title, b.title);
			cr_log_info("%s: %s %s", e->d_name, a.sig, a.title);
			seen++;
			pm_report_free(&r);
		}
		closedir(d);
	}
	cr_expect_gt(seen, 10);
}

/* explain shows the group, in both renderings. */
Test(group, explain_shows_it)
{
	fspec f[] = { { 1, "abort", false }, { 0, "fail_hard", false }, { 0, "main", false } };
	pm_report r;
	build(&r, "SIGABRT", APP_START, f, 3);
	grp g;
	pm_report_group(&r, g.sig, g.title);
	char *text = pm_explain(&r, false), *json = pm_explain(&r, true);
	char want[256];
	snprintf(want, sizeof want, "Crash group: %s, SIGABRT in fail_hard\n", g.sig);
	cr_expect(strstr(text, want) != NULL, "%s", text);
	snprintf(want, sizeof want, "\"signature\":\t\"%s\"", g.sig);
	cr_expect(strstr(json, want) != NULL, "%s", json);
	cr_expect(strstr(json, "\"title\":\t\"SIGABRT in fail_hard\"") != NULL, "%s", json);
	free(text);
	free(json);
	pm_report_free(&r);
}
