/*
 * test_read_ips.c — the .ips reader on the real Apple samples and the
 * composed example E.  Every expected value was read off the sample files.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"
#include "tests/util.h"

static void
read_ips_file(const char *rel, pm_report *r)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("%s", rel), &len);
	pm_read_error err = { 0 };
	pm_report_init(r);
	pm_err e = pm_read_ips(data, len, r, &err);
	free(data);
	cr_assert_eq(e, PM_OK, "%s: line %u: %s", rel, err.line, err.message);
}

static void
expect_frame_counts(const pm_report *r, const uint32_t *counts, uint32_t n)
{
	cr_assert_eq(r->thread_count, n);
	for (uint32_t i = 0; i < n; i++)
		cr_expect_eq(r->threads[i].frame_count, counts[i], "thread %u: %u frames, want %u",
		             i, r->threads[i].frame_count, counts[i]);
}

static const pm_reg *
reg(const pm_regs *g, const char *name)
{
	for (unsigned i = 0; i < g->count; i++)
		if (strcmp(g->reg[i].name, name) == 0)
			return &g->reg[i];
	cr_assert_fail("no register %s", name);
	return NULL;
}

static void
expect_uuid(const pm_image *im, const uint8_t want[16])
{
	cr_assert_eq(im->build_id_len, 16);
	cr_expect_arr_eq(im->build_id, want, 16);
}

Test(read_ips, monterey_x86_64)
{
	pm_report r;
	read_ips_file("samples/apple/pycrashreport__user_mode_crash_report_monterey_non_symbolicated.ips", &r);
	cr_expect_eq(r.format, PM_FORMAT_IPS);
	cr_expect_eq(r.os, PM_OS_DARWIN);
	const pm_header *h = &r.header;
	cr_expect_str_eq(h->incident_id, "051760D9-97FF-475F-8B61-B0FDFB04D484");
	cr_expect_str_eq(h->process_name, "sleep");
	cr_expect_eq(h->pid, 10277);
	cr_expect_str_eq(h->identifier, "sleep");
	cr_expect_null(h->version);
	cr_expect_str_eq(h->code_type, "X86-64 (Native)");
	cr_expect_str_eq(h->parent_name, "zsh");
	cr_expect_eq(h->parent_pid, 10192);
	cr_expect_str_eq(h->responsible, "iTerm2 [1383]");
	cr_expect_str_eq(h->coalition, "com.googlecode.iterm2 [1503]");
	cr_expect_str_eq(h->user_id, "501");
	cr_expect_str_eq(h->os_version, "macOS 12.1 (21C52)");
	cr_expect_str_eq(h->report_version, "12");
	/* 2022-01-06 15:09:22.6192 +0200 */
	cr_expect(h->time.set);
	cr_expect_eq(h->time.sec, 1641474562);
	cr_expect_eq(h->time.usec, 619200);
	cr_expect_eq(h->time.tz_min, 120);
	cr_expect_eq(h->time.digits, 4);
	cr_expect_eq(h->launch_time.sec, 1641474481);

	const pm_exception *x = &r.exception;
	cr_expect_str_eq(x->type, "EXC_BAD_ACCESS");
	cr_expect_str_eq(x->signal_name, "SIGSEGV");
	cr_expect_eq(x->signal, 11);
	cr_expect_str_eq(x->subtype, "KERN_INVALID_ADDRESS at 0x0000000000000000");
	cr_expect_eq(x->raw_code_count, 2);
	cr_expect_eq(x->raw_codes[0], 1);
	cr_expect_str_eq(x->note, "EXC_CORPSE_NOTIFY");
	cr_expect_str_eq(x->term_namespace, "SIGNAL");
	cr_expect(x->has_term_code);
	cr_expect_eq(x->term_code, 11);
	cr_expect_str_eq(x->term_indicator, "Segmentation fault: 11");
	cr_expect_str_eq(x->terminating_process, "exc handler");
	cr_expect_eq(x->terminating_pid, 10277);
	cr_expect_eq(x->triggered_thread, 0);
	cr_expect(strncmp(x->vm_region_info, "0 is not in any region.  Bytes before", 37) == 0);

	expect_frame_counts(&r, (const uint32_t[]){ 4 }, 1);
	const pm_thread *t = &r.threads[0];
	cr_expect(t->crashed);
	cr_expect_eq(t->id, 135513);
	cr_expect_str_eq(t->queue, "com.apple.main-thread");
	/* Frame 0 points at the source "A" placeholder (base 0). */
	cr_expect_eq(t->frames[0].image, 0);
	cr_expect_eq(t->frames[0].address, 0);
	cr_expect_eq(t->frames[1].address, 140703336611840u + 67753u);
	cr_expect_str_eq(t->frames[1].symbol, "nanosleep");
	cr_expect_eq(t->frames[1].symbol_offset, 196);
	cr_expect_eq(t->frames[2].address, 4387614162u);
	cr_expect_null(t->frames[2].symbol);

	const pm_regs *g = t->regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_X86_64);
	cr_expect_eq(g->count, 19);
	cr_expect_str_eq(g->reg[0].name, "rax");
	cr_expect_str_eq(g->reg[17].name, "rfl");
	cr_expect_eq(g->reg[17].value, 66119);
	cr_expect_eq(reg(g, "r13")->value, 140701961193192u);
	cr_expect(g->has_trap);
	cr_expect_eq(g->trap_number, 14);
	cr_expect_eq(g->error_code, 20);
	cr_expect_str_eq(g->trap_description, "(no mapping for user instruction read)");
	cr_expect(g->has_cpu);
	cr_expect_eq(g->logical_cpu, 8);

	cr_assert_eq(r.image_count, 4);
	cr_expect_eq(r.images[0].source, 'A');
	cr_expect_eq(r.images[0].size, 0);
	cr_expect_null(r.images[0].name);
	cr_expect_eq(r.images[0].build_id_len, 0, "the all-zero placeholder UUID is no UUID");
	cr_expect_str_eq(r.images[2].name, "sleep");
	cr_expect(r.images[2].is_app);
	expect_uuid(&r.images[2], (const uint8_t[]){ 0xb9, 0x25, 0x2d, 0xb9, 0x99, 0x10, 0x3b, 0x36,
	                                               0x86, 0x5a, 0x01, 0xe2, 0x04, 0x27, 0xc7, 0xe0 });
	pm_report_free(&r);
}

Test(read_ips, monterey_extra_header_lines)
{
	pm_report r;
	read_ips_file("samples/apple/pycrashreport__user_mode_crash_report_monterey_non_symbolicated.ips", &r);
	static const char *const want[][2] = {
		{ "Bridge OS Version", "6.1 (19P647)" },
		{ "Sleep/Wake UUID", "62FF37B6-F14D-4DAD-AD0D-5F526FE831EE" },
		{ "Time Awake Since Boot", "12000 seconds" },
		{ "Time Since Wake", "7780 seconds" },
		{ "System Integrity Protection", "disabled" },
	};
	cr_assert_eq(r.header.extra_count, 5);
	for (uint32_t i = 0; i < 5; i++) {
		cr_expect_str_eq(r.header.extra[i].key, want[i][0]);
		cr_expect_str_eq(r.header.extra[i].value, want[i][1]);
	}
	pm_report_free(&r);
}

Test(read_ips, macsymbolicator_ios16_arm64)
{
	pm_report r;
	read_ips_file("samples/apple/macsymbolicator__ios-crash-in-ips-format.ips", &r);
	const pm_header *h = &r.header;
	cr_expect_str_eq(h->identifier, "jp.mahdi.iOSCrashingTest");
	cr_expect_str_eq(h->version, "1.0 (1)");
	cr_expect_str_eq(h->code_type, "ARM-64 (Native)");
	cr_expect_str_eq(h->hardware_model, "iPhone14,2");
	cr_expect_str_eq(h->coalition, "jp.mahdi.iOSCrashingTest [625]");
	cr_expect_str_eq(h->os_version, "iPhone OS 16.0 (20A362)");
	cr_expect_str_eq(h->release_type, "User");
	cr_expect_str_eq(h->baseband_version, "2.09.01");
	cr_expect_str_eq(h->report_version, "104");
	cr_expect_eq(h->time.sec, 1663482517);
	/* uptime is in the body, but iOS translations print no Time Awake line. */
	cr_expect_eq(h->extra_count, 0);

	const pm_exception *x = &r.exception;
	cr_expect_str_eq(x->type, "EXC_BREAKPOINT");
	cr_expect_eq(x->signal, 5);
	cr_expect_str_eq(x->codes, "0x0000000000000001, 0x000000018a98520c");
	cr_expect_eq(x->raw_codes[1], 6620205580u);
	cr_expect_null(x->note);
	cr_expect_str_eq(x->term_indicator, "Trace/BPT trap: 5");
	cr_expect_eq(x->term_code, 5);
	cr_expect_str_eq(x->kernel_triage, "VM - pmap_enter retried due to resource shortage\n"
	                                   "VM - pmap_enter retried due to resource shortage");

	expect_frame_counts(&r, (const uint32_t[]){ 48, 20, 1, 21, 1, 13, 11, 14 }, 8);
	cr_expect_eq(x->triggered_thread, 0);
	cr_expect(r.threads[0].crashed);
	cr_expect_not(r.threads[1].crashed);
	cr_expect_str_eq(r.threads[5].name, "com.apple.uikit.eventfetch-thread");
	cr_expect_null(r.threads[2].queue);
	/* Text: "2   iOSCrashingTest   0x1022364bc 0x102230000 + 25788" */
	const pm_frame *f = &r.threads[0].frames[2];
	cr_expect_eq(f->image, 1);
	cr_expect_eq(f->address, 0x1022364bcu);
	cr_expect_null(f->symbol);
	cr_expect_str_eq(r.threads[0].frames[0].symbol, "_assertionFailure(_:_:file:line:flags:)");
	cr_expect_eq(r.threads[0].frames[0].symbol_offset, 312);

	const pm_regs *g = r.threads[0].regs;
	cr_assert_not_null(g);
	cr_expect_eq(g->arch, PM_ARCH_ARM64);
	cr_expect_eq(g->count, 36);
	cr_expect_eq(reg(g, "x0")->value, 0x8000000102236830u);
	cr_expect_eq(reg(g, "x24")->value, 0xd000000000000010u);
	cr_expect_eq(reg(g, "pc")->value, 0x18a98520cu);
	cr_expect_eq(reg(g, "far")->value, 0x1e7fcd448u);
	cr_expect_eq(reg(g, "esr")->value, 0xf2000001u);
	cr_expect_str_eq(g->reg[35].name, "esr");
	cr_expect_str_eq(g->esr_description, "(Breakpoint) brk 1");
	cr_expect_null(r.threads[1].regs);

	cr_assert_eq(r.image_count, 17);
	cr_expect_str_eq(r.images[0].name, "libswiftCore.dylib");
	cr_expect_str_eq(r.images[0].arch, "arm64e");
	expect_uuid(&r.images[0], (const uint8_t[]){ 0xa4, 0x9d, 0x56, 0x0c, 0x13, 0x23, 0x3b, 0xfb,
	                                               0xa7, 0xe8, 0x76, 0x2b, 0xe0, 0xc1, 0xb2, 0xef });
	cr_expect(r.images[1].is_app);
	cr_expect_eq(r.images[16].start, 0x19ba3c000u);
	pm_report_free(&r);
}

Test(read_ips, lldb_asi_macos_arm64)
{
	pm_report r;
	read_ips_file("samples/apple/lldb__asi.txt", &r);
	const pm_exception *x = &r.exception;
	cr_expect_str_eq(x->type, "EXC_CRASH");
	cr_expect_str_eq(x->signal_name, "SIGABRT");
	cr_expect_eq(x->signal, 6);
	cr_expect_null(x->term_namespace);
	cr_expect_not(x->has_term_code);
	cr_expect_str_eq(r.header.os_version, "macOS 13.0");
	cr_expect_null(r.header.release_type);
	cr_expect_str_eq(r.header.code_type, "ARM-64 (Native)");
	cr_expect_str_eq(r.header.responsible, "Terminal [615]");

	/* Three asi strings in file order, then the one asiBacktraces entry (7 lines). */
	cr_assert_eq(x->asi_count, 11);
	cr_expect_str_eq(x->asi[0], "*** Terminating app due to uncaught exception 'NSRangeException', "
	                            "reason: '*** __boundsFail: index 10 beyond bounds [0 .. 3]'");
	cr_expect_str_eq(x->asi[1], "abort() called");
	cr_expect_str_eq(x->asi[2], "terminating with uncaught exception of type NSException");
	cr_expect_str_eq(x->asi[3], "Application Specific Backtrace 0:");
	cr_expect_str_eq(x->asi[4], "0   CoreFoundation                      0x00000001a0a58418 "
	                            "__exceptionPreprocess + 176");
	cr_expect_str_eq(x->asi[10], "6   dyld                                0x00000001a05d3e50 "
	                             "start + 2544");

	expect_frame_counts(&r, (const uint32_t[]){ 15 }, 1);
	const pm_thread *t = &r.threads[0];
	cr_expect_eq(t->frames[0].address, 6988526116u);
	cr_expect_str_eq(t->frames[0].symbol, "__pthread_kill");
	cr_expect_eq(t->frames[13].address, 4370349776u);
	cr_expect_str_eq(t->frames[13].symbol, "main");
	cr_expect_eq(t->frames[13].symbol_offset, 128);
	cr_expect_eq(t->frames[13].image, 6);
	/* x8 is above 2^53: a double would have rounded it. */
	cr_expect_eq(reg(t->regs, "x8")->value, 502518818286880576u);
	cr_expect_eq(reg(t->regs, "pc")->value, 6988526116u);
	cr_expect_str_eq(t->regs->esr_description, " Address size fault");

	cr_assert_eq(r.image_count, 8);
	cr_expect_str_eq(r.images[5].name, "CoreFoundation");
	cr_expect_str_eq(r.images[5].version, "6.9");
	cr_expect_null(r.images[0].version);
	cr_expect(r.images[6].is_app);
	pm_report_free(&r);
}

Test(read_ips, example_e_inline_frames)
{
	pm_report r;
	read_ips_file("docs/examples/E_ios_sigtrap.ips", &r);
	cr_expect_str_eq(r.exception.type, "EXC_BREAKPOINT");
	cr_expect_eq(r.exception.signal, 5);
	cr_expect_str_eq(r.header.version, "2.3.1 (57)");
	cr_assert_eq(r.exception.asi_count, 1);
	cr_expect_str_eq(r.exception.asi[0], "CrashDemo/ListViewController.swift:61: Fatal error: Index out of range");
	expect_frame_counts(&r, (const uint32_t[]){ 8, 1 }, 2);
	const pm_frame *f = r.threads[0].frames;
	cr_expect(f[1].inlined);
	cr_expect_str_eq(f[1].symbol, "ListViewController.item(at:)");
	cr_expect_eq(f[1].symbol_offset, 28);
	cr_expect_str_eq(f[1].file, "ListViewController.swift");
	cr_expect_eq(f[1].line, 61);
	cr_expect_not(f[2].inlined);
	cr_expect_eq(f[2].line, 22);
	cr_expect_eq(f[1].address, f[2].address);
	cr_expect_eq(f[6].address, 4330839680u);
	cr_expect_null(f[6].symbol);
	cr_expect_not(f[6].has_offset);
	cr_expect_eq(r.threads[1].id, 90240);
	cr_expect_null(r.threads[1].regs);
	cr_assert_eq(r.image_count, 6);
	cr_expect_eq(r.images[5].source, 'A');
	cr_expect_eq(r.images[5].start, 0);
	pm_report_free(&r);
}
