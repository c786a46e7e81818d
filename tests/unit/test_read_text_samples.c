/*
 * test_read_text_samples.c — pm_read_text on every text-bearing real report in
 * ../shared/samples/apple and the composed examples in ../shared/docs/examples.
 *
 * Every expectation was taken by hand from the file (thread and frame counts
 * checked with awk, then by eye), never from the parser's output.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"
#include "util.h"

#define expect_str(got, want)                                              \
	do {                                                               \
		const char *g_ = (got), *w_ = (want);                      \
		if (!w_) {                                                 \
			cr_expect_null(g_, "%s should be NULL", #got);     \
		} else {                                                   \
			cr_expect_not_null(g_, "%s is NULL", #got);        \
			if (g_)                                            \
				cr_expect_str_eq(g_, w_, "%s", #got);      \
		}                                                          \
	} while (0)

static void
load(const char *rel, pm_report *r)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("%s", rel), &len);
	pm_read_error err;
	pm_report_init(r);
	pm_err rc = pm_read_text(data, len, r, &err);
	free(data);
	cr_assert_eq(rc, PM_OK, "%s: %s (line %u)", rel, err.message, err.line);
}

/* The image a frame resolved to, NULL when none. */
static const pm_image *
image_of(const pm_report *r, const pm_frame *f)
{
	return f->image >= 0 && (uint32_t)f->image < r->image_count ? &r->images[f->image] : NULL;
}

static void
expect_uuid(const pm_image *im, const char *hex)
{
	char got[2 * PM_BUILD_ID_MAX + 1] = "";
	for (unsigned i = 0; i < im->build_id_len; i++)
		snprintf(got + 2 * i, 3, "%02x", im->build_id[i]);
	cr_expect_str_eq(got, hex, "build id of %s", im->name ? im->name : "???");
}

typedef struct sample {
	const char *file;
	const char *type, *signal_name;
	int32_t signal;          /* Darwin numbering: every sample is Apple's */
	int32_t triggered;       /* as printed, -1 when absent */
	int32_t crashed;         /* pm_report_crashed_thread */
	uint32_t images;
	bool complete;           /* an EOF line */
	pm_os os;                /* from OS Version */
	uint32_t threads;
	uint32_t frames[64];     /* per thread, in report order */
} sample;

#define D PM_OS_DARWIN
static const sample samples[] = {
	{ "samples/apple/acrp__XCDYouTubeKit-54.txt", NULL, "SIGSEGV", 11, 0, 0, 244, false, D,
	  18, { 27, 2, 3, 8, 6, 3, 6, 6, 7, 5, 3, 3, 3, 6, 10, 3, 6, 6 } },
	{ "samples/apple/acrp__bruno.txt", NULL, "SIGSEGV", 11, 5, 5, 272, false, D,
	  55, { 13, 3, 3, 2, 3, 19, 8, 10, 10, 10, 10, 10, 10, 10, 10, 10, 11, 8, 8, 8, 8, 8, 3,
	        3, 3, 3, 8, 8, 8, 8, 8, 8, 8, 11, 18, 9, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
	        8, 8, 6, 9, 11 } },
	/* Says "Crashed Thread: 5" but has threads 0 and 1, and "Thread 1 Crashed:". */
	{ "samples/apple/acrp__handcrafted.txt", NULL, "SIGSEGV", 11, 5, 1, 5, false, D,
	  2, { 14, 3 } },
	/* A fragment: one thread and the images, no header or exception. */
	{ "samples/apple/acrp__spaces.txt", NULL, NULL, 0, -1, -1, 17, false, PM_OS_UNKNOWN,
	  1, { 17 } },
	{ "samples/apple/acrp__xcode16.txt", NULL, NULL, 0, -1, -1, 0, false, D, 0, { 0 } },
	{ "samples/apple/kscrash__BadPointer.txt", "EXC_BAD_ACCESS", "SIGSEGV", 11, 0, 0, 123, false, D,
	  8, { 16, 1, 4, 0, 7, 6, 3, 0 } },
	{ "samples/apple/kscrash__MainThreadDeadlock.txt", "0 (0)", NULL, 0, 0, 0, 123, false, D,
	  7, { 14, 4, 0, 7, 0, 4, 3 } },
	{ "samples/apple/kscrash__NSException.txt", "EXC_CRASH", "SIGABRT", 6, 0, 0, 123, false, D,
	  8, { 23, 1, 4, 0, 7, 6, 4, 3 } },
	{ "samples/apple/macsymbolicator__ios-crash-with-json-header.crash", "EXC_BREAKPOINT",
	  "SIGTRAP", 5, 0, 0, 17, true, D, 8, { 48, 20, 1, 21, 1, 13, 11, 14 } },
	{ "samples/apple/pycrashreport__user_mode_crash_report_ios14_symbolicated.ips", "EXC_CRASH",
	  "SIGABRT", 6, 0, 0, 250, true, D, 1, { 6 } },
	{ "samples/apple/pycrashreport__user_mode_crash_report_ios14_non_symbolicated_abort.ips",
	  "EXC_CRASH", "SIGABRT", 6, 7, 7, 371, true, D, 9, { 9, 9, 1, 1, 1, 1, 1, 15, 1 } },
	{ "docs/examples/A_ios_classic_sigsegv.crash", "EXC_BAD_ACCESS", "SIGSEGV", 11, 0, 0, 7, true,
	  D, 3, { 9, 1, 7 } },
	{ "docs/examples/B_ios_classic_sigabrt.crash", "EXC_CRASH", "SIGABRT", 6, 0, 0, 0, true, D,
	  1, { 16 } },
	{ "docs/examples/C_ios_watchdog_classic.crash", "EXC_CRASH", "SIGKILL", 9, 0, 0, 0, false, D,
	  1, { 5 } },
	{ "docs/examples/D_macos_classic_sigsegv.crash", "EXC_BAD_ACCESS", "SIGSEGV", 11, 0, 0, 6,
	  false, D, 2, { 5, 1 } },
	{ "docs/examples/E_ios_sigtrap_translated.crash", "EXC_BREAKPOINT", "SIGTRAP", 5, 0, 0, 6,
	  true, D, 2, { 8, 1 } },
};
#undef D

Test(read_text_samples, counts_of_every_sample)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		const sample *s = &samples[i];
		pm_report r;
		load(s->file, &r);
		const pm_exception *e = &r.exception;
		expect_str(e->type, s->type);
		expect_str(e->signal_name, s->signal_name);
		cr_expect_eq(e->signal, s->signal, "%s: signal %d", s->file, e->signal);
		cr_expect_eq(e->triggered_thread, s->triggered, "%s: triggered thread", s->file);
		cr_expect_eq(pm_report_crashed_thread(&r), s->crashed, "%s: crashed thread", s->file);
		cr_expect_eq(r.image_count, s->images, "%s: %u images", s->file, r.image_count);
		cr_expect_eq(r.complete, s->complete, "%s: complete", s->file);
		cr_expect_eq(r.os, s->os, "%s: os", s->file);
		cr_assert_eq(r.thread_count, s->threads, "%s: %u threads", s->file, r.thread_count);
		for (uint32_t t = 0; t < r.thread_count; t++)
			cr_expect_eq(r.threads[t].frame_count, s->frames[t], "%s: thread %u has %u frames",
			             s->file, t, r.threads[t].frame_count);
		pm_report_free(&r);
	}
}

Test(read_text_samples, plcrashreporter_macos)
{
	pm_report r;
	load("samples/apple/acrp__XCDYouTubeKit-54.txt", &r);
	const pm_header *h = &r.header;
	expect_str(h->process_name, "iTubeDownloader");
	cr_expect_eq(h->pid, 590);
	expect_str(h->parent_name, "launchd");
	cr_expect_eq(h->parent_pid, 129);
	expect_str(h->version, "512");
	expect_str(h->report_version, "106");
	cr_expect(h->time.set);
	cr_expect_eq(h->time.sec, 1405470309);
	cr_expect_eq(h->time.digits, 0);
	cr_assert_eq(h->extra_count, 1);
	expect_str(h->extra[0].key, "Framework Version");
	expect_str(h->extra[0].value, "1.0");
	const pm_exception *e = &r.exception;
	expect_str(e->codes, "SEGV_MAPERR at 0x8");
	cr_expect(e->has_si_code && e->si_code == 1);
	cr_expect(e->has_address && e->address == 0x8);
	const pm_frame *f = &r.threads[0].frames[1];
	cr_expect_eq(f->address, 0x00000001018b8cadull);
	expect_str(f->symbol, "-[XCDYouTubePlayerScript unscrambleSignature:]");
	cr_expect(f->has_offset && f->symbol_offset == 285);
	cr_expect_eq(f->image, 1);
	f = &r.threads[14].frames[6];
	cr_expect_null(f->symbol);
	cr_expect_eq(f->image, 0);
	const pm_image *im = &r.images[0];
	cr_expect_eq(im->start, 0x1017ff000ull);
	cr_expect_eq(im->size, 0x87000ull);
	cr_expect(im->is_app);
	expect_str(im->name, "com.AlphaSoft.iTubeDownloader");
	expect_str(im->arch, "x86_64");
	cr_expect_null(im->version);
	expect_uuid(im, "7b639009221f3815a7a3657098146f8a");
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_X86_64);
	cr_assert_eq(g->count, 19);
	cr_expect_str_eq(g->reg[0].name, "rax");
	cr_expect_str_eq(g->reg[14].name, "rip");
	cr_expect_eq(g->reg[14].value, 0x00007fff99d89d4bull);
	cr_expect_str_eq(g->reg[15].name, "rflags");
	cr_expect_str_eq(g->reg[18].name, "gs");
	pm_report_free(&r);
}

Test(read_text_samples, bruno_unreal)
{
	pm_report r;
	load("samples/apple/acrp__bruno.txt", &r);
	cr_expect_eq(r.header.time.usec, 75000);
	cr_expect_eq(r.header.time.digits, 3);
	cr_expect_eq(r.header.time.sec, 1547037862);
	cr_expect(r.threads[5].crashed);
	const pm_frame *f = &r.threads[1].frames[2];
	cr_expect_eq(f->address, 0x54485244ull);
	cr_expect_eq(f->image, -1);
	cr_expect_null(f->image_name);
	cr_expect_null(f->symbol);
	const pm_image *im = &r.images[0];
	expect_str(im->name, "YetAnotherMac");
	expect_str(im->arch, "x86_64");
	expect_str(im->version, "400.9.4 - 1.0.0");
	expect_str(im->path, "/Users/bruno/Documents/Unreal Projects/YetAnotherMac/MacNoEditor/"
	                     "YetAnotherMac.app/Contents/MacOS/YetAnotherMac");
	cr_expect_eq(im->size, 0x67c2000ull);
	expect_uuid(im, "2d903291397d3d14bfca52c7fb8c5e00");
	im = &r.images[271];
	expect_str(im->name, "libxpc.dylib");
	cr_expect_eq(im->start, 0x7fff61cb4000ull);
	cr_expect_eq(im->size, 0x31000ull);
	const pm_regs *g = r.threads[5].regs;
	cr_assert_not_null(g);
	cr_assert_eq(g->count, 21);
	cr_expect_str_eq(g->reg[0].name, "rip");
	cr_expect_str_eq(g->reg[3].name, "rax");
	cr_expect_eq(g->reg[3].value, 0x20261bb4775b008full);
	pm_report_free(&r);
}

Test(read_text_samples, handcrafted_forms)
{
	pm_report r;
	load("samples/apple/acrp__handcrafted.txt", &r);
	cr_expect_eq(r.exception.triggered_thread, 5);
	cr_expect(r.threads[1].crashed);
	expect_str(r.threads[1].name, "Test Thread Name");
	cr_assert_eq(r.exception.asi_count, 2);
	expect_str(r.exception.asi[0], "objc_msgSend() selector name: respondsToSelector:");
	expect_str(r.exception.asi[1], "  more information here");
	cr_expect_eq(r.header.time.sec, 1547055742);
	const pm_frame *f = &r.threads[0].frames[11];
	expect_str(f->symbol, "a_function_here");
	cr_expect(f->has_offset && f->symbol_offset == 64);
	cr_expect_eq(f->image, 0);
	f = &r.threads[0].frames[13];
	cr_expect_eq(f->address, 0xea004ull);
	expect_str(f->symbol, "main");
	cr_expect(!f->has_offset);
	expect_str(f->file, "main.m");
	cr_expect_eq(f->line, 16);
	cr_expect_eq(f->image, -1);
	expect_str(f->image_name, "YetanotherMac");
	cr_expect_not_null(r.threads[1].regs);
	cr_expect_null(r.threads[0].regs);
	pm_report_free(&r);
}

Test(read_text_samples, image_names_with_spaces)
{
	pm_report r;
	load("samples/apple/acrp__spaces.txt", &r);
	const pm_frame *f = &r.threads[0].frames[0];
	cr_expect_eq(f->address, 0x102268e70ull);
	cr_expect_eq(f->image, 0);
	const pm_image *im = &r.images[0];
	expect_str(im->name, "App Namespace");
	expect_str(im->arch, "arm64");
	expect_str(im->path, "/private/var/containers/Bundle/Application/012CABCB-BD5B-1234-AE44-"
	                     "3215BF57D1CD/App Namespace Some.app/App Namespace");
	cr_expect_eq(r.threads[0].frames[16].image, 12);
	expect_str(r.images[12].name, "libdyld.dylib");
	pm_report_free(&r);
}

Test(read_text_samples, header_fragment)
{
	pm_report r;
	load("samples/apple/acrp__xcode16.txt", &r);
	const pm_header *h = &r.header;
	expect_str(h->incident_id, "6156848E-344E-4D9E-84E0-87AFD0D0AE7B");
	expect_str(h->process_name, "TouchCanvas");
	cr_expect_eq(h->pid, 1052);
	expect_str(h->version, "1 (3.0)");
	expect_str(h->coalition, "com.example.apple-samplecode.TouchCanvas [1806]");
	cr_expect_eq(h->time.sec, 1585357611);
	cr_expect_eq(h->time.usec, 496900);
	cr_expect_eq(h->time.tz_min, -420);
	cr_expect_eq(h->time.digits, 4);
	cr_expect_eq(h->launch_time.sec, 1585357591);
	expect_str(h->os_version, "iPhone OS 13.3.1 (17D50)");
	pm_report_free(&r);
}

Test(read_text_samples, kscrash_side_by_side)
{
	pm_report r;
	load("samples/apple/kscrash__BadPointer.txt", &r);
	cr_expect_eq(r.header.time.sec, 1449992);
	cr_expect_eq(r.header.time.tz_min, 540);
	cr_expect(r.exception.has_address && r.exception.address == 0xffffffff);
	const pm_frame *f = &r.threads[0].frames[0];
	cr_expect_eq(f->address, 0x5b720ull);
	expect_str(f->symbol, "-[Crasher dereferenceBadPointer]");
	cr_expect(f->has_offset && f->symbol_offset == 24);
	cr_expect_eq(f->image, 0);
	expect_str(r.threads[0].queue, "apple.main-thread");
	expect_str(r.threads[4].name, "WebThread");
	expect_str(r.threads[6].name, "KSCrash Exception Handler (Secondary)");
	const pm_image *im = &r.images[0];
	cr_expect(im->is_app);
	expect_str(im->arch, "armv7");
	expect_uuid(im, "5425b875d1423832be8c3b7dd8130813");
	for (uint32_t i = 0; i < r.image_count; i++)
		if (r.images[i].name && strcmp(r.images[i].name, "WinterBoard.dylib") == 0) {
			cr_expect_eq(r.images[i].build_id_len, 0, "<(null)> is no build id");
			expect_str(r.images[i].arch, "arm");
		}
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_ARM32);
	cr_assert_eq(g->count, 17);
	cr_expect_str_eq(g->reg[15].name, "pc");
	cr_expect_eq(g->reg[15].value, 0x5b720);
	cr_expect_eq(g->reg[16].value, 0x20000030);
	pm_report_free(&r);
}

Test(read_text_samples, kscrash_deadlock_and_exception)
{
	pm_report r;
	load("samples/apple/kscrash__MainThreadDeadlock.txt", &r);
	cr_assert_eq(r.exception.asi_count, 1);
	expect_str(r.exception.asi[0], "Application main thread deadlocked");
	expect_str(r.exception.codes, "0x00000000 at 0x00000000");
	cr_expect_eq(r.exception.raw_code_count, 0);
	pm_report_free(&r);

	load("samples/apple/kscrash__NSException.txt", &r);
	cr_assert_eq(r.exception.asi_count, 1);
	expect_str(r.exception.asi[0], "*** Terminating app due to uncaught exception "
	           "'NSInvalidArgumentException', reason: '-[__NSArrayI objectForKey:]: "
	           "unrecognized selector sent to instance 0x1e59bc50'");
	const pm_frame *f = &r.threads[0].frames[2];
	cr_expect_eq(f->address, 0x315821bfull);
	expect_str(f->symbol, "-[NSObject(NSObject) doesNotRecognizeSelector:]");
	cr_expect_eq(f->symbol_offset, 103);
	const pm_image *im = image_of(&r, f);
	cr_assert_not_null(im);
	expect_str(im->name, "CoreFoundation");
	pm_report_free(&r);
}

Test(read_text_samples, xcode_export_with_metadata_line)
{
	pm_report r;
	load("samples/apple/macsymbolicator__ios-crash-with-json-header.crash", &r);
	const pm_exception *e = &r.exception;
	expect_str(e->kernel_triage, "VM - pmap_enter retried due to resource shortage\n"
	                             "VM - pmap_enter retried due to resource shortage");
	expect_str(e->term_namespace, "SIGNAL");
	cr_expect(e->has_term_code && e->term_code == 5);
	expect_str(e->term_indicator, "Trace/BPT trap: 5");
	expect_str(e->terminating_process, "exc handler");
	cr_expect_eq(e->terminating_pid, 455);
	cr_assert_eq(e->raw_code_count, 2);
	cr_expect_eq(e->raw_codes[1], 0x18a98520cull);
	cr_expect_null(r.threads[0].name);
	expect_str(r.threads[0].queue, "com.apple.main-thread");
	expect_str(r.threads[5].name, "com.apple.uikit.eventfetch-thread");
	const pm_frame *f = &r.threads[0].frames[2];
	cr_expect_eq(f->address, 0x1022364bcull);
	cr_expect_null(f->symbol);
	cr_expect_eq(f->image, 1);
	expect_str(r.images[1].name, "iOSCrashingTest");
	expect_uuid(&r.images[0], "a49d560c13233bfba7e8762be0c1b2ef");
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_ARM64);
	cr_assert_eq(g->count, 36);
	cr_expect_str_eq(g->reg[34].name, "far");
	cr_expect_eq(g->reg[34].value, 0x00000001e7fcd448ull);
	expect_str(g->esr_description, "(Breakpoint) brk 1");
	pm_report_free(&r);
}

Test(read_text_samples, ios14_ips_text_bodies)
{
	pm_report r;
	load("samples/apple/pycrashreport__user_mode_crash_report_ios14_symbolicated.ips", &r);
	expect_str(r.exception.note, "EXC_CORPSE_NOTIFY");
	expect_str(r.header.release_type, "Internal");
	cr_assert_eq(r.header.extra_count, 2);
	expect_str(r.header.extra[0].key, "Device Model");
	expect_str(r.header.extra[0].value, "D111AP");
	expect_str(r.header.extra[1].key, "UDID");
	cr_assert_eq(r.exception.asi_count, 2);
	expect_str(r.exception.asi[1], "stack buffer overflow");
	cr_expect_eq(r.header.time.sec, 1642781665);
	const pm_frame *f = &r.threads[0].frames[4];
	expect_str(f->symbol, "main");
	cr_expect_eq(f->symbol_offset, 108);
	cr_expect_eq(f->image, 0);
	cr_assert_not_null(r.threads[0].regs);
	cr_expect_eq(r.threads[0].regs->count, 35);
	/* The text has two spaces: the writer adds one before the description. */
	expect_str(r.threads[0].regs->esr_description, " Address size fault");
	pm_report_free(&r);

	load("samples/apple/pycrashreport__user_mode_crash_report_ios14_non_symbolicated_abort.ips", &r);
	expect_str(r.header.version, "???");
	cr_expect_eq(r.header.launch_time.sec, 1634787447);
	expect_str(r.threads[7].queue, "com.apple.iTunesCloud.ICURLSession.operation");
	f = &r.threads[7].frames[0];
	cr_expect_eq(f->address, 0x1c3e1a334ull);
	cr_expect_null(f->symbol);
	cr_expect_eq(f->image, 185);
	expect_str(r.images[185].name, "libsystem_kernel.dylib");
	cr_assert_not_null(r.threads[7].regs);
	pm_report_free(&r);
}

/* ---- composed examples (docs/examples) ------------------------------------- */

Test(read_text_samples, example_a_classic_sigsegv)
{
	pm_report r;
	load("docs/examples/A_ios_classic_sigsegv.crash", &r);
	const pm_header *h = &r.header;
	expect_str(h->process_name, "CrashDemo");
	cr_expect_eq(h->pid, 4821);
	expect_str(h->version, "57 (2.3.1)");
	cr_expect_eq(h->time.sec, 1631605287);
	cr_expect_eq(h->time.usec, 123400);
	cr_expect_eq(h->time.tz_min, 120);
	const pm_exception *e = &r.exception;
	expect_str(e->subtype, "KERN_INVALID_ADDRESS at 0x0000000000000010");
	cr_expect(e->has_address && e->address == 0x10);
	expect_str(e->vm_region_info,
	           "0x10 is not in any region.  Bytes before following region: 4305453040\n"
	           "      REGION TYPE                 START - END      [ VSIZE] PRT/MAX SHRMOD  REGION DETAIL\n"
	           "      UNUSED SPACE AT START\n"
	           "--->  \n"
	           "      __TEXT                   100a00000-100a10000 [   64K] r-x/r-x SM=COW  ...emo.app/CrashDemo");
	expect_str(e->term_indicator, "Segmentation fault: 11");
	expect_str(e->term_namespace, "SIGNAL");
	cr_expect(e->has_term_code && e->term_code == 0xb);
	expect_str(e->terminating_process, "exc handler");
	cr_expect_eq(e->terminating_pid, 4821);
	const pm_frame *f = &r.threads[0].frames[0];
	cr_expect_eq(f->address, 0x0000000100a05f24ull);
	expect_str(f->symbol, "-[CDViewController dereference:]");
	cr_expect(f->has_offset && f->symbol_offset == 24);
	expect_str(f->file, "CDViewController.m");
	cr_expect_eq(f->line, 42);
	cr_expect_eq(f->image, 0);
	expect_str(r.threads[2].name, "com.apple.uikit.eventfetch-thread");
	const pm_image *im = &r.images[6];
	expect_str(im->name, "libsystem_pthread.dylib");
	cr_expect_eq(im->start, 0x1e5bf7000ull);
	cr_expect_eq(im->size, 0xd000ull);
	expect_str(im->arch, "arm64e");
	expect_uuid(im, "b7b4a96c1f1d3c3da1d3f5e7a2c0c6d4");
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_assert_eq(g->count, 35);
	cr_expect_str_eq(g->reg[32].name, "pc");
	cr_expect_eq(g->reg[32].value, 0x0000000100a05f24ull);
	cr_expect_str_eq(g->reg[34].name, "esr");
	cr_expect_eq(g->reg[34].value, 0x92000006);
	expect_str(g->esr_description, "(Data Abort) byte read Translation fault");
	pm_report_free(&r);
}

Test(read_text_samples, example_b_last_exception_backtrace)
{
	pm_report r;
	load("docs/examples/B_ios_classic_sigabrt.crash", &r);
	cr_assert_eq(r.leb_count, 9);
	const pm_frame *f = &r.last_exception_backtrace[0];
	cr_expect_eq(f->address, 0x1a0d74904ull);
	expect_str(f->symbol, "__exceptionPreprocess");
	cr_expect_eq(f->symbol_offset, 220);
	cr_expect_eq(f->image, -1);
	expect_str(f->image_name, "CoreFoundation");
	f = &r.threads[0].frames[6];
	expect_str(f->symbol, "std::__terminate(void (*)())");
	cr_expect_eq(f->symbol_offset, 16);
	cr_assert_eq(r.exception.asi_count, 1);
	expect_str(r.exception.asi[0], "abort() called");
	/* The register block is elided in the example: a title with no rows. */
	cr_assert_not_null(r.threads[0].regs);
	cr_expect_eq(r.threads[0].regs->count, 0);
	pm_report_free(&r);
}

Test(read_text_samples, example_c_watchdog)
{
	pm_report r;
	load("docs/examples/C_ios_watchdog_classic.crash", &r);
	const pm_exception *e = &r.exception;
	expect_str(e->term_namespace, "SPRINGBOARD");
	cr_expect(e->has_term_code && e->term_code == 0x8badf00d);
	cr_assert_not_null(e->term_description);
	cr_expect(strncmp(e->term_description, "SPRINGBOARD, scene-create watchdog transgression: ", 50) == 0);
	cr_expect_eq(e->term_reason_count, 0);
	cr_expect_eq(r.header.time.sec, 1580782960);
	pm_report_free(&r);
}

Test(read_text_samples, example_d_macos_classic)
{
	pm_report r;
	load("docs/examples/D_macos_classic_sigsegv.crash", &r);
	const pm_header *h = &r.header;
	expect_str(h->crash_reporter_key, "7C0E1D2F-3A4B-5C6D-7E8F-90A1B2C3D4E5");
	expect_str(h->responsible, "MacDemo [70231]");
	expect_str(h->user_id, "501");
	expect_str(h->report_version, "12");
	cr_expect_eq(h->time.sec, 1622646344);
	cr_expect_eq(h->time.digits, 3);
	cr_assert_eq(h->extra_count, 2);
	expect_str(h->extra[0].key, "Time Awake Since Boot");
	expect_str(h->extra[0].value, "27000 seconds");
	expect_str(h->extra[1].key, "System Integrity Protection");
	expect_str(r.exception.codes, "KERN_INVALID_ADDRESS at 0x0000000000000008");
	cr_expect(r.exception.has_address && r.exception.address == 8);
	expect_str(r.exception.vm_region_info,
	           "VM Regions Near 0x8:\n"
	           "--> \n"
	           "    __TEXT                 000000010c9b0000-000000010c9c4000 [   80K] r-x/r-x "
	           "SM=COW  /Applications/MacDemo.app/Contents/MacOS/MacDemo");
	expect_str(r.threads[0].queue, "com.apple.main-thread");
	const pm_frame *f = &r.threads[0].frames[2];
	expect_str(f->symbol, "-[NSDocument _readFromURL:ofType:error:]");
	cr_expect_eq(f->image, 5);
	const pm_image *im = &r.images[0];
	cr_expect(im->is_app);
	expect_str(im->name, "com.example.MacDemo");
	expect_str(im->version, "1.4 - 212");
	cr_expect_null(im->arch);
	expect_uuid(im, "5b1e2c3d4f503a6b9c7d8e9f0a1b2c3d");
	expect_str(r.images[1].version, "832.7.3");
	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_X86_64);
	cr_assert_eq(g->count, 19);
	cr_expect_str_eq(g->reg[18].name, "cr2");
	cr_expect_eq(g->reg[18].value, 8);
	cr_expect(g->has_cpu && g->logical_cpu == 4);
	cr_expect(g->has_trap && g->trap_number == 14 && g->error_code == 4);
	expect_str(g->trap_description, "(no mapping for user data read)");
	pm_report_free(&r);
}

Test(read_text_samples, example_e_translated)
{
	pm_report r;
	load("docs/examples/E_ios_sigtrap_translated.crash", &r);
	expect_str(r.header.version, "2.3.1 (57)");
	const pm_frame *f = &r.threads[0].frames[1];
	cr_expect_eq(f->address, 0x1022364bcull);
	expect_str(f->symbol, "ListViewController.item(at:)");
	cr_expect(f->inlined);
	expect_str(f->file, "ListViewController.swift");
	cr_expect_eq(f->line, 61);
	cr_expect(!r.threads[0].frames[2].inlined);
	f = &r.threads[0].frames[6];
	cr_expect_null(f->symbol);
	cr_expect_eq(f->image, 1);
	cr_assert_eq(r.exception.asi_count, 1);
	expect_str(r.exception.asi[0], "CrashDemo/ListViewController.swift:61: Fatal error: Index out of range");
	expect_str(r.threads[0].queue, "com.apple.main-thread");
	cr_expect_eq(r.images[3].size, 0x82e50ull);
	const pm_image *im = &r.images[5];
	cr_expect_eq(im->start, 0);
	cr_expect_eq(im->size, 0, "the placeholder's range wraps to size 0");
	cr_expect_null(im->name);
	cr_expect_null(im->arch);
	cr_expect_null(im->path);
	cr_expect_eq(im->build_id_len, 0);
	pm_report_free(&r);
}

Test(read_text_samples, example_f_frontboard_reasons)
{
	pm_report r;
	load("docs/examples/F_watchdog_translated_fragment.txt", &r);
	const pm_exception *e = &r.exception;
	expect_str(e->term_namespace, "FRONTBOARD");
	cr_expect(e->has_term_code && e->term_code == 2343432205u);
	cr_assert_eq(e->term_reason_count, 9);
	cr_expect(strncmp(e->term_reasons[0], "<RBSTerminateContext| domain:10 code:0x8BADF00D", 47) == 0);
	expect_str(e->term_reasons[1], "ProcessVisibility: Foreground");
	expect_str(e->term_reasons[8], ") reportType:CrashLog maxTerminationResistance:Interactive>");
	cr_expect_eq(e->triggered_thread, 0);
	cr_expect_eq(r.header.extra_count, 0);
	pm_report_free(&r);
}
