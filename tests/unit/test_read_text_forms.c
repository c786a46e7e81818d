/*
 * test_read_text_forms.c — pm_read_text on small composed inputs, one per
 * layout variant the shared samples do not show: postmortem's own Linux
 * report, the date forms, legacy iOS fields, translated macOS termination,
 * the Console banner, and the rarer frame and backtrace spellings.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "postmortem-tools.h"

/* A non-NULL string equal to want. */
static void
expect_text(const char *got, const char *want)
{
	cr_expect_not_null(got, "expected \"%s\", got NULL", want);
	if (got)
		cr_expect_str_eq(got, want);
}

static void
read_ok(const char *text, pm_report *r)
{
	pm_read_error err;
	pm_report_init(r);
	cr_assert_eq(pm_read_text(text, strlen(text), r, &err), PM_OK, "%s (line %u)", err.message, err.line);
}

/* ---- postmortem's own Linux layout (docs/text-format.md) ------------------- */

static const char linux_report[] =
	"Incident Identifier: 0F6A4C1E-1111-4222-8333-944455556666\n"
	"Hardware Model:      Standard PC (Q35 + ICH9, 2009)\n"
	"Process:             crash_bus [4242]\n"
	"Code Type:           X86-64 (Native)\n"
	"Parent Process:      ??? [1]\n"
	"\n\n"
	"Date/Time:           2026-11-21 23:48:54.1234 +0100\n"
	"OS Version:          Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-26-amd64)\n"
	"Report Version:      104\n"
	"Build Host:          ci-7\n"
	"\n"
	"Exception Type:  EXC_BAD_ACCESS (SIGBUS)\n"
	"Exception Subtype: KERN_PROTECTION_FAILURE at 0x0000000000000010\n"
	"Exception Codes: BUS_ADRERR at 0x0000000000000010\n"
	"Termination Signal: Bus error: 7\n"
	"Termination Reason: Namespace SIGNAL, Code 0x7\n"
	"Terminating Process: exc handler [4242]\n"
	"Triggered by Thread:  0\n"
	"\n"
	"Thread 0 name:  main-loop\n"
	"Thread 0 Crashed:\n"
	"0   crash_bus                     \t0x000055d0c0de1139 crash_here + 16 (crash.c:12)\n"
	"1   libc.so.6                     \t0x00007f3a1c02724a 0x7f3a1c000000 + 160330\n"
	"2   ???                           \t0x0000000000001234 0x0 + 4660\n"
	"\n"
	"Thread 1:\n"
	"\n"
	"Thread 0 crashed with X86 Thread State (64-bit):\n"
	"  rax: 0x0000000000000000  rbx: 0x0000000000000001  rcx: 0x0000000000000002  rdx: 0x0000000000000003\n"
	"  rip: 0x000055d0c0de1139  rfl: 0x0000000000010246  cr2: 0x0000000000000010\n"
	"  \n"
	"Logical CPU:     1\n"
	"Error Code:      0x00000006\n"
	"Trap Number:     14\n"
	"\n\n"
	"Binary Images:\n"
	"0x55d0c0de0000 - 0x55d0c0de4fff +crash_bus x86_64  <3f1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4> /usr/local/bin/crash_bus\n"
	"0x7f3a1c000000 - 0x7f3a1c1d5fff libc.so.6 x86_64  <00000000000000000000000000000000> /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"\n"
	"EOF\n";

Test(read_text_samples, linux_layout)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_assert_eq(pm_read_text(linux_report, sizeof linux_report - 1, &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.os, PM_OS_LINUX);
	cr_expect(r.complete);
	cr_expect_null(r.header.parent_name, "??? is an unknown name");
	cr_expect_eq(r.header.parent_pid, 1);
	cr_expect_eq(r.header.time.sec, 1795301334);
	cr_expect_eq(r.header.time.usec, 123400);
	cr_assert_eq(r.header.extra_count, 1);
	expect_text(r.header.extra[0].key, "Build Host");
	const pm_exception *e = &r.exception;
	expect_text(e->signal_name, "SIGBUS");
	cr_expect_eq(e->signal, 7, "Linux numbering");
	cr_expect(e->has_si_code && e->si_code == 2, "BUS_ADRERR");
	cr_expect(e->has_address && e->address == 0x10);
	expect_text(r.threads[0].name, "main-loop");
	cr_assert_eq(r.thread_count, 2);
	cr_expect_eq(r.threads[1].frame_count, 0);
	cr_expect(!r.threads[1].captured);
	cr_expect(r.threads[0].captured);
	cr_assert_eq(r.threads[0].frame_count, 3);
	const pm_frame *f = &r.threads[0].frames[0];
	expect_text(f->file, "crash.c");
	cr_expect_eq(f->line, 12);
	cr_expect_eq(f->image, 0);
	cr_expect_eq(r.threads[0].frames[1].image, 1);
	cr_expect_null(r.threads[0].frames[1].symbol);
	cr_expect_eq(r.threads[0].frames[2].image, -1);
	cr_expect_null(r.threads[0].frames[2].image_name);
	cr_assert_eq(r.image_count, 2);
	cr_expect(r.images[0].is_app);
	cr_expect_eq(r.images[0].build_id_len, 20);
	cr_expect_eq(r.images[0].build_id[0], 0x3f);
	cr_expect_eq(r.images[0].build_id[19], 0xd4);
	cr_expect_eq(r.images[1].build_id_len, 0, "32 zeros mean no build id");
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->count, 7);
	cr_expect(g->has_cpu && g->logical_cpu == 1);
	cr_expect(g->has_trap && g->trap_number == 14 && g->error_code == 6);
	cr_expect_null(g->trap_description);
	pm_report_free(&r);
}

typedef struct date_case {
	const char *text;
	int64_t sec;
	uint32_t usec;
	int16_t tz_min;
	uint8_t digits;
} date_case;

Test(read_text_forms, date_forms)
{
	static const date_case cases[] = {
		{ "2016-05-24T07:59:56Z", 1464076796, 0, 0, 0 },              /* ISO, PLCrashReporter */
		{ "2015-09-15 11:25:36.36 +0100", 1442312736, 360000, 60, 2 }, /* iOS 9 */
		{ "2018-06-24 09:52:01.419 +0100", 1529830321, 419000, 60, 3 },
		{ "2019-01-09 17:42:22 +0000", 1547055742, 0, 0, 0 },
		{ "2021-01-01T00:00:00.123456789+05:30", 1609439400, 123456, 330, 6 },
		{ "1969-12-31 23:59:59.5 +0000", -1, 500000, 0, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[128];
		snprintf(text, sizeof text, "Date/Time:           %s\nLaunch Time:         %s\n",
		         cases[i].text, cases[i].text);
		pm_report r;
		read_ok(text, &r);
		const pm_time *t = &r.header.time;
		cr_expect(t->set, "%s", cases[i].text);
		cr_expect_eq(t->sec, cases[i].sec, "%s: sec %lld", cases[i].text, (long long)t->sec);
		cr_expect_eq(t->usec, cases[i].usec, "%s: usec %u", cases[i].text, t->usec);
		cr_expect_eq(t->tz_min, cases[i].tz_min, "%s: tz", cases[i].text);
		cr_expect_eq(t->digits, cases[i].digits, "%s: digits", cases[i].text);
		cr_expect_eq(r.header.launch_time.sec, cases[i].sec);
		pm_report_free(&r);
	}
}

/* iOS <= 6 SpringBoard kill: raw type, the magic alone in the codes. */
Test(read_text_forms, legacy_watchdog)
{
	pm_report r;
	read_ok("Exception Type:  00000020\n"
	        "Exception Codes: 0x8badf00d\n"
	        "Highlighted Thread:  0\n"
	        "\n"
	        "Application Specific Information:\n"
	        "com.example.app failed to launch in time\n"
	        "\n"
	        "Thread 0 name:  tid_303  Dispatch queue: com.apple.main-thread\n"
	        "Thread 0:\n"
	        "0   ???                           \t000000000000000000 0 + 0\n"
	        "1   ???                           \t0x0000000000000040 0 + 64\n", &r);
	expect_text(r.exception.type, "00000020");
	cr_expect_null(r.exception.signal_name);
	cr_assert_eq(r.exception.raw_code_count, 1);
	cr_expect_eq(r.exception.raw_codes[0], 0x8badf00d);
	cr_expect_eq(r.exception.triggered_thread, 0);
	cr_assert_eq(r.exception.asi_count, 1);
	cr_assert_eq(r.thread_count, 1);
	expect_text(r.threads[0].name, "tid_303");
	expect_text(r.threads[0].queue, "com.apple.main-thread");
	cr_assert_eq(r.threads[0].frame_count, 2);
	cr_expect_eq(r.threads[0].frames[0].address, 0);
	cr_expect_eq(r.threads[0].frames[1].address, 0x40);
	cr_expect_null(r.threads[0].frames[1].symbol);
	cr_expect_null(r.threads[0].frames[1].image_name);
	cr_expect_eq(pm_report_crashed_thread(&r), 0);
	pm_report_free(&r);
}

Test(read_text_forms, translated_macos_termination)
{
	pm_report r;
	read_ok("Process:               FocusTogether [9376]\n"
	        "Crashed Thread:        0  main  Dispatch queue: com.apple.main-thread\n"
	        "\n"
	        "Exception Type:        EXC_CRASH (SIGABRT)\n"
	        "Termination Reason:    Namespace SIGNAL, Code 6 Abort trap: 6\n"
	        "Terminating Process:   FocusTogether [9376]\n"
	        "\n"
	        "Thread 0 Crashed::  main Dispatch queue: com.apple.main-thread\n"
	        "0   libsystem_kernel.dylib        \t       0x18f3f2a60 __pthread_kill + 8\n"
	        "\n"
	        "Thread 1:: JavaScriptCore libpas scavenger\n"
	        "Thread 2:\n", &r);
	expect_text(r.exception.term_namespace, "SIGNAL");
	cr_expect(r.exception.has_term_code && r.exception.term_code == 6);
	expect_text(r.exception.term_indicator, "Abort trap: 6");
	expect_text(r.exception.terminating_process, "FocusTogether");
	cr_expect_eq(r.exception.terminating_pid, 9376);
	cr_assert_eq(r.thread_count, 3);
	expect_text(r.threads[0].name, "main");
	expect_text(r.threads[0].queue, "com.apple.main-thread");
	cr_expect_eq(r.threads[0].frames[0].address, 0x18f3f2a60ull);
	expect_text(r.threads[1].name, "JavaScriptCore libpas scavenger");
	cr_expect_null(r.threads[1].queue);
	cr_expect_null(r.threads[2].name);
	pm_report_free(&r);
}

Test(read_text_forms, watchos_reason_on_the_label_line)
{
	pm_report r;
	read_ok("Exception Type:  EXC_CRASH (SIGKILL)\n"
	        "Termination Reason: CAROUSEL, WatchConnectivity watchdog transgression.\n"
	        "Triggered by Thread:  0\n", &r);
	expect_text(r.exception.term_namespace, "CAROUSEL");
	cr_expect(!r.exception.has_term_code);
	cr_assert_eq(r.exception.term_reason_count, 1);
	expect_text(r.exception.term_reasons[0], "WatchConnectivity watchdog transgression.");
	cr_expect_eq(r.exception.triggered_thread, 0);
	pm_report_free(&r);
}

/* Console wraps its translation in a banner and appends the raw JSON. */
Test(read_text_forms, console_banner)
{
	pm_report r;
	read_ok("-------------------------------------\n"
	        "Translated Report (Full Report Below)\n"
	        "-------------------------------------\n"
	        "\n"
	        "Process:               Demo [1]\n"
	        "Exception Type:        EXC_BAD_ACCESS (SIGSEGV)\n"
	        "\n"
	        "Thread 0 Crashed:\n"
	        "0   Demo                          \t       0x104d2c0a0 main + 12\n"
	        "\n"
	        "-----------\n"
	        "Full Report\n"
	        "-----------\n"
	        "\n"
	        "{\"app_name\":\"Demo\",\"bug_type\":\"309\"}\n"
	        "Thread 7 Crashed:\n", &r);
	cr_expect_eq(r.exception.asi_count, 0, "banner lines are not text of the report");
	cr_expect_eq(r.header.extra_count, 0);
	cr_expect_eq(r.thread_count, 1, "reading stops at the Full Report banner");
	cr_expect(!r.complete);
	pm_report_free(&r);
}

Test(read_text_forms, old_last_exception_backtrace)
{
	pm_report r;
	read_ok("Exception Type:  EXC_CRASH (SIGABRT)\n"
	        "\n"
	        "Last Exception Backtrace:\n"
	        "(0x1883aa59c 0x198af40e4 0x1882a4d40)\n"
	        "\n"
	        "Thread 0 Crashed:\n", &r);
	cr_assert_eq(r.leb_count, 3);
	cr_expect_eq(r.last_exception_backtrace[0].address, 0x1883aa59cull);
	cr_expect_eq(r.last_exception_backtrace[2].address, 0x1882a4d40ull);
	cr_expect_eq(r.last_exception_backtrace[1].image, -1);
	pm_report_free(&r);
}

Test(read_text_forms, arm32_apple_layout_and_unknown_versions)
{
	pm_report r;
	read_ok("Thread 0 Crashed:\n"
	        "0   libsystem_kernel.dylib        \t0x258aac5c __pthread_kill + 8\n"
	        "\n"
	        "Thread 0 crashed with ARM Thread State (32-bit):\n"
	        "    r0: 0x00000000    r1: 0x00000000      r2: 0x00000000      r3: 0x00000000\n"
	        "    ip: 0x00000148    sp: 0x0021936c      lr: 0x25954733      pc: 0x258aac5c\n"
	        "  cpsr: 0x00000010\n"
	        "\n"
	        "Binary Images:\n"
	        "       0x104d20000 -        0x105c43fff FocusTogether (*) <9d489cdf-11ad-3077-a386-6321379f73a0> /Users/USER/Downloads/*/FocusTogether\n"
	        "       0x104d50000 -        0x104d5ffff +old (?\?\?) <00000000-0000-0000-0000-000000000000> /old\n"
	        "               0x0 - 0xffffffffffffffff ??? (*) <00000000-0000-0000-0000-000000000000> ???\n", &r);
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_ARM32);
	cr_assert_eq(g->count, 9);
	cr_expect_str_eq(g->reg[8].name, "cpsr");
	cr_expect_eq(g->reg[7].value, 0x258aac5c);
	cr_assert_eq(r.image_count, 3);
	expect_text(r.images[0].name, "FocusTogether");
	cr_expect_null(r.images[0].version, "(*) is an unknown version");
	cr_expect_eq(r.images[0].build_id_len, 16);
	cr_expect_eq(r.images[0].build_id[0], 0x9d);
	cr_expect_null(r.images[1].version);
	cr_expect(r.images[1].is_app);
	cr_expect_eq(r.images[1].build_id_len, 0);
	cr_expect_null(r.images[2].name);
	cr_expect_eq(r.images[2].size, 0);
	pm_report_free(&r);
}

/* ---- the app's own sections (docs/text-format.md, "App context") ------------- */

Test(read_text_forms, annotations_and_breadcrumbs_skip_what_they_cannot_read)
{
	static const char text[] = "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n"
	                           "Triggered by Thread:  0\n"
	                           "\n"
	                           "Annotations:\n"
	                           "  build: 1234\n"
	                           "  no colon here\n"
	                           "  url: https://example.org:8080/x\n"
	                           "  tight:no space\n"
	                           "\n"
	                           "Breadcrumbs:\n"
	                           "  2026-11-23 19:20:01.123 +0100  opened  the file\n"
	                           "  not a time  message\n"
	                           "  2026-11-23 19:20:02.5 +0000 one space only\n"
	                           "Thread 0 Crashed:\n"
	                           "0   app                           \t0x000055d0c0de1139 main + 16\n"
	                           "\n";
	pm_report r;
	read_ok(text, &r);
	cr_assert_eq(r.annotation_count, 2);
	expect_text(r.annotations[0].key, "build");
	expect_text(r.annotations[0].value, "1234");
	expect_text(r.annotations[1].key, "url");
	expect_text(r.annotations[1].value, "https://example.org:8080/x");
	cr_assert_eq(r.breadcrumb_count, 1);
	expect_text(r.breadcrumbs[0].message, "opened  the file");
	cr_expect_eq(r.breadcrumbs[0].time.usec, 123000);
	cr_expect_eq(r.breadcrumbs[0].time.tz_min, 60);
	cr_expect_eq(r.thread_count, 1, "the section ends at the thread line");
	pm_report_free(&r);
}
