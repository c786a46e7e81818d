/* test_explain.c — pm_explain on small report models built in code. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"

#define APP_START UINT64_C(0x555500000000)
#define LIBC_START UINT64_C(0x7f0000000000)

/* One frame: image index (0 app, 1 libc, -1 none), symbol, offset into the symbol. */
typedef struct frame_spec {
	int32_t image;
	const char *symbol;
	uint64_t offset;
	const char *file;
	uint32_t line;
} frame_spec;

static void *
alloc(pm_report *r, size_t n)
{
	void *p = pm_report_alloc(r, n, 16);
	cr_assert_not_null(p);
	return p;
}

/* A report with the app image (0) and libc (1), and one crashed thread with `frames`. */
static pm_thread *
build(pm_report *r, pm_os os, const frame_spec *frames, uint32_t n)
{
	pm_report_init(r);
	r->os = os;
	r->header.process_name = "crasher";
	r->header.process_path = "/usr/bin/crasher";
	r->images = alloc(r, 2 * sizeof *r->images);
	r->image_count = 2;
	r->images[0] = (pm_image){ .start = APP_START, .size = 0x10000, .name = "crasher",
	                           .path = "/usr/bin/crasher" };
	r->images[1] = (pm_image){ .start = LIBC_START, .size = 0x200000, .name = "libc.so.6",
	                           .path = "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	r->threads = alloc(r, sizeof *r->threads);
	r->thread_count = 1;
	pm_thread *t = &r->threads[0];
	*t = (pm_thread){ .id = 4242, .name = "main", .crashed = true, .captured = true };
	t->frames = alloc(r, n * sizeof *t->frames);
	t->frame_count = n;
	for (uint32_t i = 0; i < n; i++) {
		const frame_spec *s = &frames[i];
		uint64_t base = s->image == 1 ? LIBC_START : APP_START;
		t->frames[i] = (pm_frame){ .address = base + 0x1000 + 0x40 * i, .image = s->image,
		                           .symbol = s->symbol, .symbol_offset = s->offset,
		                           .has_offset = s->symbol != NULL, .file = s->file,
		                           .line = s->line };
	}
	r->exception.triggered_thread = 0;
	return t;
}

static void
set_signal(pm_report *r, const char *name, int32_t number, const char *type)
{
	r->exception.signal_name = name;
	r->exception.signal = number;
	r->exception.type = type;
}

static void
set_sp(pm_report *r, pm_thread *t, uint64_t sp)
{
	t->regs = alloc(r, sizeof *t->regs);
	t->regs->arch = PM_ARCH_X86_64;
	t->regs->count = 2;
	strcpy(t->regs->reg[0].name, "rip");
	t->regs->reg[0].value = t->frames[0].address;
	strcpy(t->regs->reg[1].name, "rsp");
	t->regs->reg[1].value = sp;
}

static void
expect_has(const char *text, const char *phrase)
{
	cr_expect(strstr(text, phrase) != NULL, "missing \"%s\" in:\n%s", phrase, text);
}

static void
expect_lacks(const char *text, const char *phrase)
{
	cr_expect(strstr(text, phrase) == NULL, "unexpected \"%s\" in:\n%s", phrase, text);
}

static char *
explain(const pm_report *r, bool json)
{
	char *s = pm_explain(r, json);
	cr_assert_not_null(s);
	cr_expect(s[0] != '\0' && s[strlen(s) - 1] == '\n', "output ends with a newline");
	return s;
}

static cJSON *
explain_json(const pm_report *r)
{
	char *s = explain(r, true);
	cJSON *j = cJSON_Parse(s);
	cr_assert_not_null(j, "not JSON:\n%s", s);
	free(s);
	return j;
}

static const char *
jstr(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(it) ? it->valuestring : NULL;
}

static double
jnum(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	cr_assert(cJSON_IsNumber(it), "member %s is not a number", key);
	return it->valuedouble;
}

static void
expect_jstr(const cJSON *obj, const char *key, const char *want)
{
	const char *got = jstr(obj, key);
	cr_expect(got && strcmp(got, want) == 0, "%s: got \"%s\", want \"%s\"", key, got ? got : "(none)",
	          want);
}

/* Linux SIGSEGV at 0x0 with frame 0 in the app. */
static pm_thread *
null_deref(pm_report *r)
{
	static const frame_spec frames[] = {
		{ 0, "crash_here", 16, "main.c", 12 },
		{ 0, "main", 40, "main.c", 30 },
		{ 1, "__libc_start_call_main", 122, NULL, 0 },
	};
	pm_thread *t = build(r, PM_OS_LINUX, frames, 3);
	set_signal(r, "SIGSEGV", 11, "EXC_BAD_ACCESS");
	r->exception.has_si_code = true;
	r->exception.si_code = 1;
	r->exception.has_address = true;
	r->exception.address = 0;
	return t;
}

Test(explain, null_dereference_in_the_app)
{
	pm_report r;
	null_deref(&r);
	char *s = explain(&r, false);
	expect_has(s, "The process was killed by SIGSEGV (EXC_BAD_ACCESS): it read or wrote memory at "
	              "0x0000000000000000 that is not mapped (KERN_INVALID_ADDRESS) — a NULL pointer "
	              "dereference.");
	expect_has(s, "The kernel reported SEGV_MAPERR");
	expect_has(s, "Crashed thread: 0 (id 4242), named \"main\"");
	expect_has(s, "  0  crasher  crash_here + 16 (main.c:12)\n");
	expect_has(s, "  1  crasher  main + 40 (main.c:30)\n");
	expect_has(s, "  2  libc.so.6  __libc_start_call_main + 122\n");
	expect_has(s, "Frame 0 is in crasher, your app's own code.");
	expect_lacks(s, "first frame in your code");
	expect_lacks(s, "stack overflow");
	expect_lacks(s, "Termination:");
	free(s);
	pm_report_free(&r);
}

Test(explain, general_protection_fault_has_no_address)
{
	pm_report r;
	null_deref(&r);
	r.exception.si_code = 0x80;
	char *s = explain(&r, false);
	expect_has(s, "it read or wrote memory through an invalid (non-canonical) pointer (EXC_I386_GPFLT).");
	expect_has(s, "The kernel reported SI_KERNEL");
	expect_lacks(s, "NULL pointer");
	free(s);

	/* macOS prints the name alone; the raw pair is (13, 0). */
	r.os = PM_OS_DARWIN;
	r.exception.has_si_code = false;
	r.exception.has_address = false;
	r.exception.codes = "EXC_I386_GPFLT";
	r.exception.raw_codes[0] = 13;
	r.exception.raw_code_count = 2;
	s = explain(&r, false);
	expect_has(s, "(EXC_I386_GPFLT).");
	expect_lacks(s, "NULL pointer");
	free(s);
	pm_report_free(&r);
}

Test(explain, third_party_si_code_text)
{
	static const frame_spec frames[] = { { 0, "f", 1, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_DARWIN, frames, 1);
	set_signal(&r, "SIGBUS", 10, "EXC_BAD_ACCESS");
	r.exception.codes = "BUS_ADRERR at 0x7f0000400000";
	char *s = explain(&r, false);
	expect_has(s, "at 0x00007f0000400000 whose protection forbids that access");
	expect_has(s, "(KERN_PROTECTION_FAILURE).");
	free(s);
	pm_report_free(&r);
}

Test(explain, null_function_pointer_call)
{
	pm_report r;
	pm_thread *t = null_deref(&r);
	t->frames[0] = (pm_frame){ .address = 0, .image = -1 };
	char *s = explain(&r, false);
	expect_has(s, "a call through a NULL function pointer");
	expect_has(s, "  0  ???  0x0000000000000000\n");
	expect_has(s, "Frame 0 is outside every known image; first frame in your code:\n"
	              "  1  crasher  main + 40 (main.c:30)\n");
	free(s);
	cJSON *j = explain_json(&r);
	const cJSON *img = cJSON_GetObjectItemCaseSensitive(j, "crashed_image");
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(img, "name"));
	cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(img, "is_app")));
	cr_expect_eq(jnum(cJSON_GetObjectItemCaseSensitive(j, "first_app_frame"), "index"), 1);
	cJSON_Delete(j);

	/* Apple text prints the unknown image as ???. */
	r.threads[0].frames[0].image_name = "???";
	s = explain(&r, false);
	expect_has(s, "Frame 0 is outside every known image;");
	free(s);
	pm_report_free(&r);
}

Test(explain, stack_overflow_near_the_stack_pointer)
{
	static const frame_spec frames[] = {
		{ 0, "recurse", 8, NULL, 0 },
		{ 0, "recurse", 30, NULL, 0 },
	};
	pm_report r;
	pm_thread *t = build(&r, PM_OS_LINUX, frames, 2);
	set_signal(&r, "SIGSEGV", 11, "EXC_BAD_ACCESS");
	r.exception.has_si_code = true;
	r.exception.si_code = 2;
	r.exception.has_address = true;
	r.exception.address = UINT64_C(0x7ffc000ff000);
	set_sp(&r, t, UINT64_C(0x7ffc000ff008));
	char *s = explain(&r, false);
	expect_has(s, "at 0x00007ffc000ff000 whose protection forbids that access");
	expect_has(s, "(KERN_PROTECTION_FAILURE)");
	expect_has(s, "likely a stack overflow");
	expect_lacks(s, "NULL pointer");
	free(s);

	/* Far from the stack pointer: no stack overflow. */
	set_sp(&r, t, UINT64_C(0x7ffc00200000));
	s = explain(&r, false);
	expect_lacks(s, "stack overflow");
	free(s);
	pm_report_free(&r);
}

/* SIGABRT: frames 0-2 in libc, frame 3 in the app. */
static void
abort_in_libc(pm_report *r)
{
	static const frame_spec frames[] = {
		{ 1, "__pthread_kill_implementation", 271, NULL, 0 },
		{ 1, "raise", 18, NULL, 0 },
		{ 1, "abort", 211, NULL, 0 },
		{ 0, "check_config", 52, "config.c", 88 },
		{ 0, "main", 40, "main.c", 30 },
	};
	build(r, PM_OS_LINUX, frames, 5);
	set_signal(r, "SIGABRT", 6, "EXC_CRASH");
	r->exception.has_si_code = true;
	r->exception.si_code = -6;
	static const char *asi[] = { "crasher: config.c:88: check_config: Assertion `n > 0' failed." };
	r->exception.asi = asi;
	r->exception.asi_count = 1;
}

Test(explain, abort_with_frame_zero_in_libc)
{
	pm_report r;
	abort_in_libc(&r);
	char *s = explain(&r, false);
	expect_has(s, "The process was killed by SIGABRT (EXC_CRASH).");
	expect_has(s, "abort()");
	expect_has(s, "failed assertion");
	expect_has(s, "The kernel reported SI_TKILL");
	expect_has(s, "Application Specific Information:\n  crasher: config.c:88: check_config: "
	              "Assertion `n > 0' failed.\n");
	expect_has(s, "Frame 0 is in libc.so.6, a library, not your app; first frame in your code:\n"
	              "  3  crasher  check_config + 52 (config.c:88)\n");
	free(s);
	pm_report_free(&r);
}

Test(explain, abort_as_json)
{
	pm_report r;
	abort_in_libc(&r);
	cJSON *j = explain_json(&r);
	expect_jstr(j, "kind", "crash");
	expect_jstr(j, "signal", "SIGABRT");
	cr_expect_eq(jnum(j, "signal_number"), 6);
	expect_jstr(j, "exception_type", "EXC_CRASH");
	cr_assert_not_null(jstr(j, "summary"));
	expect_has(jstr(j, "summary"), "abort()");
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(j, "thread");
	cr_assert(cJSON_IsObject(th));
	cr_expect_eq(jnum(th, "index"), 0);
	cr_expect_eq(jnum(th, "id"), 4242);
	expect_jstr(th, "name", "main");
	const cJSON *frames = cJSON_GetObjectItemCaseSensitive(j, "frames");
	cr_assert(cJSON_IsArray(frames));
	cr_expect_eq(cJSON_GetArraySize(frames), 5);
	const cJSON *f0 = cJSON_GetArrayItem(frames, 0);
	expect_jstr(f0, "image", "libc.so.6");
	expect_jstr(f0, "symbol", "__pthread_kill_implementation");
	cr_expect_eq(jnum(f0, "address"), (double)(LIBC_START + 0x1000));
	cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(f0, "in_app")));
	const cJSON *img = cJSON_GetObjectItemCaseSensitive(j, "crashed_image");
	expect_jstr(img, "name", "libc.so.6");
	cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(img, "is_app")));
	const cJSON *app = cJSON_GetObjectItemCaseSensitive(j, "first_app_frame");
	cr_assert(cJSON_IsObject(app));
	cr_expect_eq(jnum(app, "index"), 3);
	expect_jstr(app, "symbol", "check_config");
	expect_jstr(app, "text", "  3  crasher  check_config + 52 (config.c:88)");
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(app, "in_app")));
	const cJSON *asi = cJSON_GetObjectItemCaseSensitive(j, "asi");
	cr_expect(cJSON_IsArray(asi) && cJSON_GetArraySize(asi) == 1);
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(j, "termination"));
	cJSON_Delete(j);
	pm_report_free(&r);
}

Test(explain, more_than_six_frames_shows_six)
{
	frame_spec frames[9];
	for (int i = 0; i < 9; i++)
		frames[i] = (frame_spec){ 0, "recurse", (uint64_t)i, NULL, 0 };
	pm_report r;
	build(&r, PM_OS_LINUX, frames, 9);
	set_signal(&r, "SIGSEGV", 11, NULL);
	char *s = explain(&r, false);
	expect_has(s, "  5  crasher  recurse + 5\n");
	expect_lacks(s, "  6  crasher");
	expect_has(s, "(EXC_BAD_ACCESS)");
	free(s);
	cJSON *j = explain_json(&r);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "frames")), 6);
	cJSON_Delete(j);
	pm_report_free(&r);
}

/* An iOS watchdog kill: SIGKILL, FRONTBOARD 0x8badf00d, main thread in the app. */
static void
watchdog(pm_report *r)
{
	static const frame_spec frames[] = {
		{ 1, "mach_msg2_trap", 8, NULL, 0 },
		{ 0, "-[AppDelegate application:didFinishLaunchingWithOptions:]", 120, NULL, 0 },
	};
	build(r, PM_OS_DARWIN, frames, 2);
	r->images[0].is_app = true;
	r->images[0].path = "/private/var/containers/Bundle/Application/X/Crasher.app/Crasher";
	r->images[0].name = "Crasher";
	r->images[1].name = "libsystem_kernel.dylib";
	r->header.process_name = "Crasher";
	r->header.process_path = NULL;
	r->threads[0].queue = "com.apple.main-thread";
	set_signal(r, "SIGKILL", 9, "EXC_CRASH");
	r->exception.term_namespace = "FRONTBOARD";
}

Test(explain, watchdog_termination_code)
{
	pm_report r;
	watchdog(&r);
	r.exception.has_term_code = true;
	r.exception.term_code = 0x8badf00d;
	char *s = explain(&r, false);
	expect_has(s, "The process was killed by SIGKILL (EXC_CRASH).");
	expect_has(s, "Termination: namespace FRONTBOARD, code 0x8badf00d (\"ate bad food\").");
	expect_has(s, "watchdog killed the app because its main thread was blocked too long");
	expect_has(s, "Usual cause:");
	expect_has(s, "queue \"com.apple.main-thread\"");
	expect_has(s, "Frame 0 is in libsystem_kernel.dylib, a library, not your app; first frame in your code:\n"
	              "  1  Crasher  -[AppDelegate application:didFinishLaunchingWithOptions:] + 120\n");
	free(s);

	cJSON *j = explain_json(&r);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "termination");
	cr_assert(cJSON_IsObject(t));
	expect_jstr(t, "namespace", "FRONTBOARD");
	cr_expect_eq(jnum(t, "code"), 2343432205.0);
	expect_jstr(t, "code_hex", "0x8badf00d");
	expect_jstr(t, "name", "ate bad food");
	cr_assert_not_null(jstr(t, "meaning"));
	expect_has(jstr(t, "meaning"), "watchdog");
	expect_jstr(cJSON_GetObjectItemCaseSensitive(j, "thread"), "queue", "com.apple.main-thread");
	cJSON_Delete(j);
	pm_report_free(&r);
}

Test(explain, magic_only_in_a_reasons_line)
{
	pm_report r;
	watchdog(&r);
	static const char *reasons[] = {
		"<RBSTerminateContext| domain:10 code:0x8BADF00D explanation:scene-create watchdog "
		"transgression: app<com.example.Crasher>:2286 exhausted real (wall clock) time allowance "
		"of 19.93 seconds",
		"ProcessVisibility: Foreground",
	};
	r.exception.term_reasons = reasons;
	r.exception.term_reason_count = 2;
	char *s = explain(&r, false);
	expect_has(s, "code 0x8badf00d (\"ate bad food\")");
	expect_has(s, "watchdog");
	free(s);
	cJSON *j = explain_json(&r);
	expect_jstr(cJSON_GetObjectItemCaseSensitive(j, "termination"), "code_hex", "0x8badf00d");
	cJSON_Delete(j);
	pm_report_free(&r);
}

Test(explain, magic_in_old_exception_codes)
{
	pm_report r;
	watchdog(&r);
	r.exception.term_namespace = NULL;
	set_signal(&r, NULL, 0, "00000020");
	r.exception.codes = "0x8badf00d";
	char *s = explain(&r, false);
	expect_has(s, "The report gives the exception type as 00000020.");
	expect_has(s, "Termination: code 0x8badf00d (\"ate bad food\").");
	free(s);
	pm_report_free(&r);
}

Test(explain, signal_namespace_is_not_magic)
{
	pm_report r;
	null_deref(&r);
	r.exception.term_namespace = "SIGNAL";
	r.exception.has_term_code = true;
	r.exception.term_code = 11;
	char *s = explain(&r, false);
	expect_has(s, "Termination: namespace SIGNAL, code 0xb (SIGSEGV). Segmentation fault.");
	expect_lacks(s, "Usual cause");
	free(s);
	pm_report_free(&r);
}

Test(explain, hang_report)
{
	static const frame_spec frames[] = {
		{ 1, "__lll_lock_wait", 40, NULL, 0 },
		{ 0, "load_settings", 12, "settings.c", 7 },
	};
	pm_report r;
	build(&r, PM_OS_LINUX, frames, 2);
	r.kind = PM_KIND_HANG;
	char *s = explain(&r, false);
	expect_has(s, "The process hung: a watchdog saw a thread stop responding");
	expect_lacks(s, "does not say which signal");
	expect_has(s, "Hung thread: 0");
	expect_has(s, "first frame in your code:\n  1  crasher  load_settings + 12 (settings.c:7)\n");
	free(s);
	cJSON *j = explain_json(&r);
	expect_jstr(j, "kind", "hang");
	expect_has(jstr(j, "summary"), "hung");
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(j, "signal"));
	cJSON_Delete(j);
	pm_report_free(&r);
}

Test(explain, darwin_numbering_for_unknown_os)
{
	static const frame_spec frames[] = { { 0, "f", 1, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_UNKNOWN, frames, 1);
	set_signal(&r, NULL, 10, NULL);
	char *s = explain(&r, false);
	expect_has(s, "killed by SIGBUS (EXC_BAD_ACCESS)");
	expect_has(s, "Mapped memory could not be accessed");
	free(s);
	r.os = PM_OS_LINUX;
	s = explain(&r, false);
	expect_has(s, "killed by SIGUSR1 (EXC_CRASH)");
	free(s);
	pm_report_free(&r);
}

Test(explain, apple_bad_access_from_raw_codes)
{
	static const frame_spec frames[] = { { 0, "f", 1, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_DARWIN, frames, 1);
	set_signal(&r, "SIGSEGV", 11, "EXC_BAD_ACCESS");
	r.exception.subtype = "KERN_INVALID_ADDRESS at 0x0000000000000010";
	r.exception.raw_codes[0] = 1;
	r.exception.raw_codes[1] = 0x10;
	r.exception.raw_code_count = 2;
	char *s = explain(&r, false);
	expect_has(s, "memory at 0x0000000000000010 that is not mapped (KERN_INVALID_ADDRESS) — a NULL "
	              "pointer dereference.");
	expect_lacks(s, "kernel reported");
	free(s);
	pm_report_free(&r);
}

Test(explain, guard_decoded_from_raw_codes)
{
	static const frame_spec frames[] = { { 1, "close", 8, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_DARWIN, frames, 1);
	set_signal(&r, NULL, 0, "EXC_GUARD");
	r.exception.raw_codes[0] = 0x400000010000000e;
	r.exception.raw_codes[1] = 0x08fd4dbfade2dead;
	r.exception.raw_code_count = 2;
	char *s = explain(&r, false);
	expect_has(s, "The process was stopped by EXC_GUARD.");
	expect_has(s, "Subtype: GUARD_TYPE_FD. CLOSE on file descriptor 14, guard 0x08fd4dbfade2dead.");
	free(s);
	pm_report_free(&r);
}

Test(explain, empty_report)
{
	pm_report r;
	pm_report_init(&r);
	char *s = explain(&r, false);
	expect_has(s, "does not say which signal or exception");
	expect_has(s, "does not say which thread");
	free(s);
	cJSON *j = explain_json(&r);
	expect_jstr(j, "kind", "crash");
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(j, "thread"));
	cJSON_Delete(j);
	pm_report_free(&r);
}

Test(explain, app_image_unknown)
{
	static const frame_spec frames[] = { { 1, "memcpy", 30, NULL, 0 }, { 0, "f", 1, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_LINUX, frames, 2);
	r.header.process_name = NULL;
	r.header.process_path = NULL;
	set_signal(&r, "SIGSEGV", 11, NULL);
	char *s = explain(&r, false);
	expect_has(s, "Frame 0 is in libc.so.6; the report does not say which image is the app.\n");
	expect_lacks(s, "first frame in your code");
	free(s);
	pm_report_free(&r);
}

Test(explain, resource_limit_with_report_text)
{
	static const frame_spec frames[] = { { 0, "spin", 4, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_DARWIN, frames, 1);
	set_signal(&r, NULL, 0, "EXC_RESOURCE");
	r.exception.subtype = "CPU";
	r.exception.message = "(Limit 50%) Observed 60% over 180 secs";
	char *s = explain(&r, false);
	expect_has(s, "The process was stopped by EXC_RESOURCE. The process went over a resource limit");
	expect_has(s, "Subtype: CPU. (Limit 50%) Observed 60% over 180 secs.");
	free(s);
	pm_report_free(&r);
}

Test(explain, snapshot_is_not_a_crash)
{
	static const frame_spec frames[] = { { 0, "work", 4, NULL, 0 } };
	pm_report r;
	build(&r, PM_OS_LINUX, frames, 1);
	r.kind = PM_KIND_SNAPSHOT;
	r.threads[0].crashed = false;
	char *s = explain(&r, false);
	expect_has(s, "snapshot taken on request; the process did not crash.");
	expect_has(s, "Thread: 0 (id 4242)");
	expect_lacks(s, "killed");
	free(s);
	pm_report_free(&r);
}
