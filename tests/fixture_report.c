/*
 * fixture_report.c — the report models of fixture_report.h.
 *
 * Values are invented but shaped like real captures, so text renderings of
 * these fixtures read like real reports.
 */
#include "fixture_report.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof a / sizeof a[0])

/* Arena copy of n elements, so fixtures stay static tables. */
static void *
copy(pm_report *r, const void *src, size_t n, size_t size)
{
	void *p = pm_report_alloc(r, n * size, 16);
	cr_assert_not_null(p, "fixture: arena allocation failed");
	memcpy(p, src, n * size);
	return p;
}

#define COPY(r, a) copy(r, a, COUNT(a), sizeof a[0])

static pm_regs *
regs(pm_report *r, pm_arch arch, const char *const *names, const uint64_t *values, unsigned n)
{
	pm_regs *g = pm_report_alloc(r, sizeof *g, 16);
	cr_assert_not_null(g, "fixture: arena allocation failed");
	g->arch = arch;
	for (unsigned i = 0; i < n; i++) {
		strcpy(g->reg[i].name, names[i]);
		g->reg[i].value = values[i];
	}
	g->count = (uint8_t)n;
	return g;
}

static void
build_id(pm_image *im, const char *hex)
{
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned b;
		sscanf(hex + 2 * i, "%2x", &b);
		im->build_id[i] = (uint8_t)b;
	}
	im->build_id_len = (uint8_t)n;
}

/* ---- Linux x86_64 ------------------------------------------------------ */

static const char *const x86_64_names[] = {
	"rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "rip", "rfl", "cr2",
};

static const uint64_t crashed_values[] = {
	0x0000000000000000, 0x00007ffd3a1f1e48, 0xffffffffffffffff, 0x0000000000000010,
	0x0000000000000010, 0x000055d0c0de2004, 0x00007ffd3a1f1d30, 0x00007ffd3a1f1d10,
	0x0000000000000001, 0x00007f3a1c1d6a80, 0x0000000000000000, 0x0000000000000246,
	0x00007ffd3a1f1e58, 0x000055d0c0de1180, 0x0020000000000001, 0x00007f3a1c3f5000,
	0x000055d0c0de1139, 0x0000000000010246, 0x0000000000000010,
};

static const uint64_t io_values[] = {
	0xfffffffffffffdfc, 0x00007f3a1b7fe640, 0x00007f3a1c0e2f16, 0x0000000000000000,
	0x0000000000000003, 0x00007f3a1b7fdc70, 0x00007f3a1b7fdd00, 0x00007f3a1b7fdc40,
	0x0000000000000000, 0x0000000000000000, 0x00000000ffffffff, 0x0000000000000293,
	0x00007f3a1b7fe640, 0x0000000000000000, 0x00007f3a1c1d5b20, 0x00007ffd3a1f1c00,
	0x00007f3a1c0e2f16, 0x0000000000000293, 0x0000000000000000,
};

static const pm_frame linux_crashed_frames[] = {
	{ .address = 0x55d0c0de1139, .image = 0, .symbol = "crash_here", .symbol_offset = 16,
	  .has_offset = true, .file = "/src/demo/crash.c", .line = 42, .column = 7, .how = PM_HOW_CONTEXT },
	{ .address = 0x55d0c0de1262, .image = 0, .symbol = "parse_config", .symbol_offset = 34,
	  .has_offset = true, .file = "/src/demo/config.h", .line = 17, .column = 3, .inlined = true,
	  .how = PM_HOW_CFI },
	{ .address = 0x55d0c0de1262, .image = 0, .symbol = "main", .symbol_offset = 194,
	  .has_offset = true, .file = "/src/demo/main.c", .line = 88, .how = PM_HOW_CFI },
	{ .address = 0x7f3a1c02724a, .image = 1, .symbol = "__libc_start_call_main",
	  .file = "../sysdeps/nptl/libc_start_call_main.h", .line = 58, .how = PM_HOW_FP },
	{ .address = 0x7f3a1d40b00f, .image = 2, .how = PM_HOW_SCAN },
	{ .address = 0x7ffd3a3f2a5c, .image = -1, .image_name = "[vdso]", .symbol = "__vdso_clock_gettime",
	  .symbol_offset = 92, .has_offset = true, .how = PM_HOW_UNKNOWN },
	{ .address = 0x1000, .image = -1, .how = PM_HOW_SCAN },
};

static const pm_frame linux_io_frames[] = {
	{ .address = 0x7f3a1c0e2f16, .image = 1, .symbol = "epoll_wait", .symbol_offset = 86,
	  .has_offset = true, .how = PM_HOW_CONTEXT },
	{ .address = 0x7f3a1e2010c4, .image = 3, .symbol = "plug_poll", .symbol_offset = 52,
	  .has_offset = true, .how = PM_HOW_CFI },
	{ .address = 0x7f3a1e201233, .image = 3, .symbol = "plug_loop", .symbol_offset = 403,
	  .has_offset = true, .how = PM_HOW_CFI },
};

static const pm_frame linux_leb[] = {
	{ .address = 0x7f3a1c0a1b2c, .image = 1, .symbol = "abort", .symbol_offset = 211,
	  .has_offset = true, .how = PM_HOW_CFI },
	{ .address = 0x55d0c0de1139, .image = 0, .symbol = "crash_here", .symbol_offset = 16,
	  .has_offset = true, .how = PM_HOW_CFI },
};

static const pm_kv linux_extra[] = {
	{ "Sleep/Wake UUID", "9D2E6C40-1F8B-4A57-B3C2-7E5A0D9F1B68" },
	{ "Command Line", "crash_null --config \"/etc/demo.conf\" C:\\tmp\\x\nsecond line" },
};

static const char *const linux_reasons[] = {
	"Namespace detail: \"fault\" in \\src\\demo",
	"raised by the CPU\twhile reading",
};

static const char *const linux_asi[] = {
	"config: \"/etc/demo.conf\"",
	"state\x01machine \x1f ok\r",
	"gr\303\266\303\237e: 3 \342\206\222 4 \360\237\222\245", /* octal: no run-on */
};

static void
linux_header(pm_header *h)
{
	h->incident_id = "0F6A4C1E-8B2D-4F3A-9C71-5E0D2B8A6F14";
	h->crash_reporter_key = "6c1d0a9f0b3e4d5a8f7e2c1b0a9d8e7f6c5b4a39";
	h->hardware_model = "Standard PC (Q35 + ICH9, 2009)";
	h->process_name = "crash_null";
	h->pid = 4242;
	h->process_path = "/opt/demo/bin/crash_null";
	h->identifier = "crash_null";
	h->version = "1.4 (212)";
	h->code_type = "X86-64 (Native)";
	h->role = "Non UI";
	h->parent_name = "bash";
	h->parent_pid = 4100;
	h->responsible = "crash_null [4242]";
	h->coalition = "session-7 [801]";
	h->user_id = "1000";
	/* 2026-11-21 23:48:54.1234 +0100 */
	h->time = (pm_time){ .sec = 1795301334, .usec = 123400, .tz_min = 60, .digits = 4, .set = true };
	h->launch_time = (pm_time){ .sec = 1795301222, .usec = 500000, .tz_min = 60, .digits = 4, .set = true };
	h->os_version = "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-26-amd64)";
	h->release_type = "User";
	h->baseband_version = "n/a";
	h->report_version = "104";
}

static void
linux_exception(pm_report *r)
{
	pm_exception *e = &r->exception;
	e->type = "EXC_BAD_ACCESS";
	e->signal_name = "SIGSEGV";
	e->signal = 11;
	e->has_si_code = true;
	e->si_code = 1;
	e->has_address = true;
	e->address = 0x10;
	e->subtype = "KERN_INVALID_ADDRESS at 0x0000000000000010";
	e->message = "null \"config\" pointer dereferenced";
	e->codes = "SEGV_MAPERR at 0x0000000000000010";
	e->raw_codes[0] = 1;
	e->raw_codes[1] = 0x10;
	e->raw_code_count = 2;
	e->note = "EXC_CORPSE_NOTIFY";
	e->vm_region_info = "0x10 is not in any region.  Bytes before following region: 94372310106096\n"
	                    "      REGION TYPE    START - END\n"
	                    "--->  \n"
	                    "      r-xp           55d0c0de0000-55d0c0de5000 crash_null";
	e->term_namespace = "SIGNAL";
	e->has_term_code = true;
	e->term_code = 11;
	e->term_indicator = "Segmentation fault: 11";
	e->term_reasons = COPY(r, linux_reasons);
	e->term_reason_count = COUNT(linux_reasons);
	e->term_description = "SIGSEGV raised by the CPU";
	e->term_flags = 0x6;
	e->terminating_process = "exc handler";
	e->terminating_pid = 4242;
	e->triggered_thread = 0;
	e->asi = COPY(r, linux_asi);
	e->asi_count = COUNT(linux_asi);
	e->kernel_triage = "VM - (arg = 0x0) pmap_enter retried due to resource shortage\n"
	                   "VM - (arg = 0x0) pmap_enter retried due to resource shortage\n";
}

static void
linux_threads(pm_report *r)
{
	pm_thread t[3] = { 0 };
	t[0].id = 4242;
	t[0].name = "main \"loop\"\t\xe2\x86\x92";
	t[0].crashed = true;
	t[0].captured = true;
	t[0].note = "stack walk ended at the outermost frame";
	t[0].regs = regs(r, PM_ARCH_X86_64, x86_64_names, crashed_values, COUNT(crashed_values));
	t[0].regs->has_trap = true;
	t[0].regs->trap_number = 14;
	t[0].regs->error_code = 6;
	t[0].regs->has_cpu = true;
	t[0].regs->logical_cpu = 3;
	t[0].regs->trap_description = "(no mapping for user data read)";
	t[0].frames = COPY(r, linux_crashed_frames);
	t[0].frame_count = COUNT(linux_crashed_frames);

	t[1].id = 4243;
	t[1].name = "worker-1";
	t[1].note = "not captured: the thread did not stop within 100 ms";

	t[2].id = 4244;
	t[2].name = "io\\pool";
	t[2].queue = "com.example.io";
	t[2].captured = true;
	t[2].note = "stack walk stopped at the frame limit";
	t[2].regs = regs(r, PM_ARCH_X86_64, x86_64_names, io_values, COUNT(io_values));
	t[2].frames = COPY(r, linux_io_frames);
	t[2].frame_count = COUNT(linux_io_frames);
	t[2].frames_truncated = true;

	r->threads = COPY(r, t);
	r->thread_count = COUNT(t);
	r->threads_truncated = true;
}

static void
linux_images(pm_report *r)
{
	pm_image im[4] = { 0 };
	im[0] = (pm_image){ .start = 0x55d0c0de0000, .size = 0x5000, .name = "crash_null",
	                    .arch = "x86_64", .path = "/opt/demo/bin/crash_null", .version = "1.4",
	                    .is_app = true, .source = 'P',
	                    .debug_file = "/usr/lib/debug/.build-id/3f/1c9a7e52b04d6e8f1a2b3c4d5e6f708192a3b4.debug" };
	build_id(&im[0], "3f1c9a7e52b04d6e8f1a2b3c4d5e6f708192a3b4");
	im[1] = (pm_image){ .start = 0x7f3a1c000000, .size = 0x1c5000, .name = "libc.so.6",
	                    .arch = "x86_64", .path = "/usr/lib/x86_64-linux-gnu/libc.so.6",
	                    .version = "2.36" };
	build_id(&im[1], "e5b2a8cd8f6f4f3d5d1f5a0b6b9d3b1d6e2c4a70");
	im[2] = (pm_image){ .start = 0x7f3a1d200000, .size = 0x2ff000, .name = "libcrypto.so.3",
	                    .arch = "x86_64", .path = "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	                    .note = "no debug information: install libssl3-dbgsym" };
	build_id(&im[2], "8a41c3d2e9f04b7a9c15d6e7f8091a2b");
	im[3] = (pm_image){ .start = 0x7f3a1e200000, .size = 0x3000, .name = "libplug \"\xce\xb2\".so",
	                    .arch = "x86_64",
	                    .path = "/opt/demo/plug-ins/\303\234n\303\257code dir/libplug \"\xce\xb2\".so" };
	r->images = COPY(r, im);
	r->image_count = COUNT(im);
	r->images_truncated = true;
}

void
pm_fixture_linux_crash(pm_report *r)
{
	r->kind = PM_KIND_CRASH;
	r->os = PM_OS_LINUX;
	r->os_name = "Linux";
	linux_header(&r->header);
	r->header.extra = COPY(r, linux_extra);
	r->header.extra_count = COUNT(linux_extra);
	linux_exception(r);
	linux_threads(r);
	linux_images(r);
	r->last_exception_backtrace = COPY(r, linux_leb);
	r->leb_count = COUNT(linux_leb);
	r->complete = true;
}

/* ---- Darwin arm64 ------------------------------------------------------ */

static const char *const arm64_names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
	"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
	"x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",
	"fp", "lr", "sp", "pc", "cpsr", "far", "esr",
};

static const uint64_t arm64_crashed_values[] = {
	0x0000000000000010, 0x000000016f5a7a28, 0x0000000000000000, 0x0000000000000001,
	0x0000000283f1c2a0, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x00000001e3b2d000, 0x8000000000000000, 0x00000002817a4e00, 0x0000000000000004,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x00000001d3c2a8e8, 0x0000000000000000, 0x0000000283f1c2a0,
	0x0000000102a41000, 0x0000000000000001, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000,
	0x000000016f5a7a10, 0xa4d3000102a4c7b8, 0x000000016f5a79f0, 0x0000000102a4c0e4,
	0x0000000060001000, 0x0000000000000010, 0x0000000092000006,
};

static const uint64_t arm64_other_values[] = {
	0x0000000010004005, 0x0000000007000806, 0x0000000000000000, 0x0000000000002303,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0xfffffffffffffff1, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0xffffffffffffffe1, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
	0x0000000000000000,
	0x000000016f636ee0, 0x00000001d3c2b118, 0x000000016f636e40, 0x00000001d3c2a8f4,
	0x0000000000001000, 0x0000000000000000, 0x0000000056000080,
};

static const pm_frame arm64_crashed_frames[] = {
	{ .address = 0x102a4c0e4, .image = 0, .symbol = "-[GameScene loadLevel:]", .symbol_offset = 228,
	  .has_offset = true, .file = "GameScene.m", .line = 131, .how = PM_HOW_CONTEXT },
	{ .address = 0x102a4c7b8, .image = 0, .symbol = "-[GameScene didMoveToView:]", .symbol_offset = 76,
	  .has_offset = true, .how = PM_HOW_FP },
	{ .address = 0x1a0f3d2c0, .image = 2, .how = PM_HOW_FP },
};

static const pm_frame arm64_other_frames[] = {
	{ .address = 0x1d3c2a8f4, .image = 1, .symbol = "mach_msg2_trap", .symbol_offset = 8,
	  .has_offset = true, .how = PM_HOW_CONTEXT },
	{ .address = 0x1d3c2b118, .image = 1, .symbol = "mach_msg2_internal", .symbol_offset = 80,
	  .has_offset = true, .how = PM_HOW_FP },
};

void
pm_fixture_arm64_apple(pm_report *r)
{
	r->kind = PM_KIND_CRASH;
	r->os = PM_OS_DARWIN;
	r->os_name = "Darwin";

	pm_header *h = &r->header;
	h->incident_id = "A3B5C7D9-1E2F-4A6B-8C0D-2E4F6A8B0C1D";
	h->crash_reporter_key = "f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e";
	h->hardware_model = "iPhone14,2";
	h->process_name = "SoloQuest";
	h->pid = 812;
	h->process_path = "/private/var/containers/Bundle/Application/5C1E8F2A-7B3D-4E6F-9A0B-1C2D3E4F5A6B/SoloQuest.app/SoloQuest";
	h->identifier = "com.kimu.soloquest";
	h->version = "1.0.0 (5)";
	h->code_type = "ARM-64 (Native)";
	h->role = "Foreground";
	h->parent_name = "launchd";
	h->parent_pid = 1;
	h->coalition = "com.kimu.soloquest [1203]";
	/* 2024-06-03 09:14:27.5512 -0700 */
	h->time = (pm_time){ .sec = 1717431267, .usec = 551200, .tz_min = -420, .digits = 4, .set = true };
	h->launch_time = (pm_time){ .sec = 1717431005, .usec = 98700, .tz_min = -420, .digits = 4, .set = true };
	h->os_version = "iPhone OS 17.5.1 (21F90)";
	h->release_type = "User";
	h->baseband_version = "4.02.01";
	h->report_version = "104";

	pm_exception *e = &r->exception;
	e->type = "EXC_BAD_ACCESS";
	e->signal_name = "SIGSEGV";
	e->signal = 11;
	e->has_address = true;
	e->address = 0x10;
	e->subtype = "KERN_INVALID_ADDRESS at 0x0000000000000010";
	e->codes = "0x0000000000000001, 0x0000000000000010";
	e->raw_codes[0] = 1;
	e->raw_codes[1] = 0x10;
	e->raw_code_count = 2;
	e->term_namespace = "SIGNAL";
	e->has_term_code = true;
	e->term_code = 11;
	e->term_indicator = "Segmentation fault: 11";
	e->terminating_process = "exc handler";
	e->terminating_pid = 812;
	e->triggered_thread = 0;

	pm_thread t[2] = { 0 };
	t[0] = (pm_thread){ .id = 1715004, .queue = "com.apple.main-thread", .crashed = true,
	                    .captured = true };
	t[0].regs = regs(r, PM_ARCH_ARM64, arm64_names, arm64_crashed_values, COUNT(arm64_crashed_values));
	t[0].regs->esr_description = "(Data Abort) byte read Translation fault";
	t[0].frames = COPY(r, arm64_crashed_frames);
	t[0].frame_count = COUNT(arm64_crashed_frames);
	t[1] = (pm_thread){ .id = 1715019, .name = "com.apple.uikit.eventfetch-thread", .captured = true };
	t[1].regs = regs(r, PM_ARCH_ARM64, arm64_names, arm64_other_values, COUNT(arm64_other_values));
	t[1].frames = COPY(r, arm64_other_frames);
	t[1].frame_count = COUNT(arm64_other_frames);
	r->threads = COPY(r, t);
	r->thread_count = COUNT(t);

	pm_image im[3] = { 0 };
	im[0] = (pm_image){ .start = 0x102a40000, .size = 0x4f000, .name = "SoloQuest", .arch = "arm64",
	                    .path = h->process_path, .is_app = true, .source = 'P' };
	build_id(&im[0], "11ce3f5762643e8d8a8986894d83b974");
	im[1] = (pm_image){ .start = 0x1d3c29000, .size = 0x39000, .name = "libsystem_kernel.dylib",
	                    .arch = "arm64e", .path = "/usr/lib/system/libsystem_kernel.dylib",
	                    .source = 'S' };
	build_id(&im[1], "0cb1d6ecb4ee33d5982829db31cad6fc");
	im[2] = (pm_image){ .start = 0x1a0e9c000, .size = 0x1d0c000, .name = "UIKitCore", .arch = "arm64e",
	                    .path = "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore",
	                    .version = "8.0 - 8018.1.107", .source = 'S' };
	build_id(&im[2], "5f2a9d7c3b1e4a6f8d0c2b4a6e8f0a1c");
	r->images = COPY(r, im);
	r->image_count = COUNT(im);
	r->complete = true;
}
