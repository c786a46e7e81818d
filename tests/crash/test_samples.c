/*
 * test_samples.c — crash every sample program in a child process and check
 * what postmortem wrote: both files, read back with the library's own
 * readers; the exception; the crashed thread and its frames; every thread;
 * the images and their build ids; and the child's death by its own signal.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "crash_util.h"
#include "formats/decode/decode.h"
#include "util.h"

typedef struct expect {
	const char *sample;
	int signal;
	const char *type;        /* Exception Type */
	const char *codes;       /* Exception Codes prefix: the si_code name */
	const char *subtype;     /* Exception Subtype prefix, NULL when none */
	const char *function;    /* must be on the crashed thread's stack */
	uint32_t threads;        /* threads the report must list */
} expect;

/* The text written at crash time is the JSON twin rendered as text. */
static void
check_twins_agree(const crash_run *run)
{
	size_t len;
	char *crash = pm_test_slurp(run->crash_path, &len);
	char *buf = NULL;
	size_t buf_len = 0;
	cr_assert_eq(pm_write_report_string(&run->json, PM_FORMAT_TEXT, &buf, &buf_len), PM_OK);
	cr_expect_eq(buf_len, len, "text rendered from the JSON twin has %zu bytes, the .crash %zu", buf_len, len);
	cr_expect(memcmp(buf, crash, len < buf_len ? len : buf_len) == 0,
	          "the .crash differs from the JSON twin rendered as text");
	free(buf);
	free(crash);
}

static void
check_images(const crash_run *run, const char *sample)
{
	const pm_report *r = &run->json;
	char exe[PATH_MAX];
	cr_assert(realpath(crash_sample_path(sample), exe) != NULL);
	const pm_image *app = crash_find_image(r, exe);
	cr_assert(app != NULL, "the executable %s is not among the images", exe);
	cr_expect(app->is_app, "the executable is not marked as the app");
	cr_expect_str_eq(crash_image_build_id(app), crash_readelf_build_id(exe));
	const pm_image *libc = crash_find_image(r, "/libc.so.6");
	cr_assert(libc != NULL, "libc is not among the images");
	cr_expect_not(libc->is_app);
	cr_expect_str_eq(crash_image_build_id(libc), crash_readelf_build_id(libc->path));
	cr_expect_eq(libc->build_id_len, 20);
}

static void
check_exception(const pm_report *r, const expect *x)
{
	const pm_exception *e = &r->exception;
	const pm_signal_info *s = pmi_signal_by_number(PM_OS_LINUX, x->signal);
	cr_expect_eq(r->os, PM_OS_LINUX);
	cr_expect_str_eq(e->type, x->type);
	cr_expect_str_eq(e->signal_name, s->name);
	cr_expect_eq(e->signal, x->signal);
	cr_assert(e->codes != NULL);
	cr_expect(strncmp(e->codes, x->codes, strlen(x->codes)) == 0, "codes '%s', expected '%s…'", e->codes, x->codes);
	if (x->subtype)
		cr_expect(e->subtype && strncmp(e->subtype, x->subtype, strlen(x->subtype)) == 0,
		          "subtype '%s', expected '%s…'", e->subtype ? e->subtype : "(none)", x->subtype);
	cr_expect_eq(e->term_code, (uint64_t)x->signal);
}

static const pm_thread *
check_threads(const pm_report *r, const expect *x)
{
	int32_t ct = pm_report_crashed_thread(r);
	cr_assert(ct >= 0, "no crashed thread");
	cr_expect_eq(r->exception.triggered_thread, ct);
	uint32_t emulator = crash_emulator_threads();
	cr_expect_eq(r->thread_count, x->threads + emulator, "%u threads listed, %u alive", r->thread_count,
	             x->threads + emulator);
	int crashed = 0;
	for (uint32_t i = 0; i < r->thread_count; i++) {
		const pm_thread *t = &r->threads[i];
		crashed += t->crashed;
		if (emulator && crash_is_emulator_thread(t)) {
			emulator--;
			continue;
		}
		cr_expect(t->captured, "thread %u (%s) was not captured: %s", i, t->name, t->note ? t->note : "");
		cr_expect(t->regs != NULL && t->frame_count > 0, "thread %u has no registers or frames", i);
	}
	cr_expect_eq(emulator, 0, "qemu's helper thread is not listed as blocking the freeze signal");
	cr_expect_eq(crashed, 1, "exactly one thread must be marked crashed");
	const pm_thread *t = &r->threads[ct];
	cr_expect(crash_frame_index(r, t, x->function) >= 0, "%s is not on the crashed thread's stack",
	          x->function);
	return t;
}

static void
check_sample(const expect *x)
{
	crash_run run;
	crash_run_sample(&run, x->sample, NULL);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == x->signal,
	          "%s should die of signal %d, status 0x%x", x->sample, x->signal, run.status);
	cr_expect_eq(run.reports, 1, "one report per crash");
	cr_expect(run.json.complete, "the JSON twin is not marked complete");
	cr_expect(run.text.complete, "the .crash text has no EOF");
	check_exception(&run.json, x);
	check_exception(&run.text, x);
	check_threads(&run.json, x);
	check_images(&run, x->sample);
	check_twins_agree(&run);
	crash_run_free(&run);
}

#define SAMPLE_TEST(name, ...) \
	Test(samples, name, .timeout = 60) { check_sample(&(expect){ #name, __VA_ARGS__ }); }

SAMPLE_TEST(null_deref, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_MAPERR at 0x0000000000000000",
            "KERN_INVALID_ADDRESS at 0x0000000000000000", "crash_null_deref", 1)
SAMPLE_TEST(write_rodata, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_ACCERR", "KERN_PROTECTION_FAILURE",
            "crash_write_rodata", 1)
SAMPLE_TEST(stack_overflow, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_", NULL, "crash_recurse", 1)
SAMPLE_TEST(stack_overflow_thread, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_", NULL, "crash_recurse_worker", 2)
SAMPLE_TEST(abort, SIGABRT, "EXC_CRASH", "SI_TKILL", NULL, "crash_abort", 1)
SAMPLE_TEST(ud2, SIGILL, "EXC_BAD_INSTRUCTION", "ILL_ILLOPN", NULL, "crash_ud2", 1)
#if defined(__aarch64__)
/* __builtin_trap is brk #1000 on arm64; the breakpoint is brk, reported as such. */
SAMPLE_TEST(builtin_trap, SIGTRAP, "EXC_BREAKPOINT", "TRAP_BRKPT", NULL, "crash_builtin_trap", 1)
SAMPLE_TEST(int3, SIGTRAP, "EXC_BREAKPOINT", "TRAP_BRKPT", NULL, "crash_breakpoint", 1)

/* arm64's sdiv gives 0 for a zero divisor: no signal, so no report. */
Test(samples, divide_by_zero, .timeout = 60)
{
	crash_run run;
	crash_run_program_noreport(&run, crash_sample_path("divide_by_zero"), NULL, NULL);
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0, "status 0x%x", run.status);
	cr_expect_eq(run.reports, 0);
	crash_run_free(&run);
}
#else
SAMPLE_TEST(builtin_trap, SIGILL, "EXC_BAD_INSTRUCTION", "ILL_ILLOPN", NULL, "crash_builtin_trap", 1)
SAMPLE_TEST(int3, SIGTRAP, "EXC_BREAKPOINT", "SI_KERNEL", NULL, "crash_breakpoint", 1)
SAMPLE_TEST(divide_by_zero, SIGFPE, "EXC_ARITHMETIC", "FPE_INTDIV", NULL, "crash_divide", 1)
#endif
SAMPLE_TEST(sigbus_mmap, SIGBUS, "EXC_BAD_ACCESS", "BUS_ADRERR", "KERN_PROTECTION_FAILURE", "crash_sigbus", 1)
SAMPLE_TEST(null_function, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_MAPERR at 0x0000000000000000", NULL,
            "crash_call_null", 1)
SAMPLE_TEST(many_threads, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_MAPERR", NULL, "crash_with_threads", 65)
SAMPLE_TEST(two_threads_crash, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_MAPERR", NULL, "crash_in_thread", 3)
SAMPLE_TEST(malloc_lock, SIGSEGV, "EXC_BAD_ACCESS", "SEGV_MAPERR", NULL, "crash_while_malloc_locked", 2)
