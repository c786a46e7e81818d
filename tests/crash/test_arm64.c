/*
 * test_arm64.c — capture on aarch64 (issue 15), run under qemu-user by
 * `make test-arm64`: real sample programs crash and their reports must show
 * the ARM thread state in Apple's names, frame 0 at pc, frames through
 * libc's code (no frame pointers: CFI), the kernel's signal frame, a worker
 * thread, and images with the build ids readelf finds; `explain` of such a
 * report, which carries no esr under qemu, stands on the signal.
 *
 * Under qemu-user 7.2 two things differ from hardware and are left out here
 * (docs/arm64.md): qemu's own helper thread is listed (it never answers the
 * freeze), and the re-queued signal aborts qemu instead of ending the
 * process with it, so the exit status is not asserted.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crash_util.h"

static const char *const apple_arm64[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14",
	"x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28",
	"fp", "lr", "sp", "pc", "cpsr", "far",
};

static uint64_t
reg(const pm_regs *g, const char *name)
{
	for (unsigned i = 0; i < g->count; i++)
		if (strcmp(g->reg[i].name, name) == 0)
			return g->reg[i].value;
	cr_assert_fail("no register %s", name);
	return 0;
}

static const pm_thread *
crashed(const pm_report *r)
{
	int32_t ct = pm_report_crashed_thread(r);
	cr_assert(ct >= 0, "no crashed thread");
	return &r->threads[ct];
}

/* Every name of `chain` (innermost first, NULL-terminated) on t's stack in order. */
static void
expect_chain(const pm_thread *t, const char *const *chain)
{
	uint32_t at = 0;
	for (const char *const *c = chain; *c; c++) {
		while (at < t->frame_count && !(t->frames[at].symbol && strcmp(t->frames[at].symbol, *c) == 0))
			at++;
		cr_expect(at < t->frame_count, "%s is missing from the stack (or out of order)", *c);
		if (at == t->frame_count)
			return;
		at++;
	}
}

Test(arm64, thread_state, .timeout = 120)
{
	crash_run run;
	crash_run_sample(&run, "null_deref", NULL);
	for (int k = 0; k < 2; k++) {
		const pm_report *r = k ? &run.json : &run.text;
		cr_expect_str_eq(r->header.code_type, "ARM-64 (Native)");
		const pm_thread *t = crashed(r);
		cr_assert(t->regs, "the crashed thread has no registers");
		const pm_regs *g = t->regs;
		cr_expect_eq(g->arch, PM_ARCH_ARM64);
		size_t n = sizeof apple_arm64 / sizeof apple_arm64[0];
		cr_assert_geq(g->count, n, "%u registers", g->count);
		for (size_t i = 0; i < n; i++)
			cr_expect_str_eq(g->reg[i].name, apple_arm64[i], "register %zu", i);
		cr_assert_gt(t->frame_count, 1);
		cr_expect_eq(reg(g, "pc"), t->frames[0].address, "frame 0 is not at pc");
		cr_expect_eq(reg(g, "far"), 0, "a NULL dereference faults at 0");
		static const char *const chain[] = { "crash_null_deref", "call_null_deref", "__libc_start_main",
			                             "_start", NULL };
		expect_chain(t, chain);
	}
	cr_expect_eq(crashed(&run.json)->frames[0].how, PM_HOW_CONTEXT, "only the JSON twin says how");
	const pm_image *libc = crash_find_image(&run.json, "/libc.so.6");
	cr_assert(libc, "libc is not among the images");
	cr_expect_str_eq(libc->arch, "arm64");
	cr_expect_str_eq(crash_image_build_id(libc), crash_readelf_build_id(libc->path));
	crash_run_free(&run);
}

/* -O2 without frame pointers: qsort's frames come from libc's CFI. */
Test(arm64, through_libc, .timeout = 120)
{
	crash_run run;
	crash_run_sample(&run, "unwind_qsort", NULL);
	const pm_thread *t = crashed(&run.json);
	static const char *const chain[] = { "compare_and_crash", "qsort_r", "sort_things", "main",
		                             "__libc_start_main", "_start", NULL };
	expect_chain(t, chain);
	cr_expect(t->note == NULL, "the walk stopped early: %s", t->note ? t->note : "");
	int q = crash_frame_index(&run.json, t, "qsort_r");
	cr_assert_geq(q, 0);
	cr_expect_eq(t->frames[q].how, PM_HOW_CFI);
	crash_run_free(&run);
}

/* A crash in a signal handler: the kernel's signal frame restores the interrupted registers. */
Test(arm64, signal_frame, .timeout = 120)
{
	crash_run run;
	crash_run_sample(&run, "unwind_signal", NULL);
	const pm_thread *t = crashed(&run.json);
	static const char *const chain[] = { "crash_in_handler", "on_usr1", "__kernel_rt_sigreturn", "raise",
		                             "raise_usr1", "main", "_start", NULL };
	expect_chain(t, chain);
	int s = crash_frame_index(&run.json, t, "__kernel_rt_sigreturn");
	cr_assert(s >= 0 && (uint32_t)s + 1 < t->frame_count);
	cr_expect_eq(t->frames[s + 1].how, PM_HOW_CONTEXT);
	crash_run_free(&run);
}

/* A worker thread's leaf-most frames and its caller chain. */
Test(arm64, worker, .timeout = 120)
{
	crash_run run;
	crash_run_sample(&run, "unwind_worker", NULL);
	const pm_thread *t = crashed(&run.json);
	static const char *const chain[] = { "crash_in_worker", "worker_descend", "worker_main", NULL };
	expect_chain(t, chain);
	cr_expect(t->note == NULL, "the walk stopped early: %s", t->note ? t->note : "");
	crash_run_free(&run);
}

/* __builtin_trap is brk under arm64: explain says so from the signal and its
 * si_code, and adds no syndrome sentence where qemu left no esr. */
Test(arm64, explain_without_esr, .timeout = 120)
{
	crash_run run;
	crash_run_sample(&run, "builtin_trap", NULL);
	const pm_thread *t = crashed(&run.json);
	bool has_esr = false;
	for (unsigned i = 0; t->regs && i < t->regs->count; i++)
		has_esr |= strcmp(t->regs->reg[i].name, "esr") == 0;
	char *s = pm_explain(&run.json, false);
	cr_assert_not_null(s);
	cr_expect(strstr(s, "The process was killed by SIGTRAP (EXC_BREAKPOINT)") != NULL, "%s", s);
	cr_expect(strstr(s, "The kernel reported TRAP_BRKPT") != NULL, "%s", s);
	/* On hardware the kernel's esr_context gives GCC's brk #1000 in words. */
	if (has_esr)
		cr_expect(strstr(s, "brk #1000), emitted by GCC's __builtin_trap") != NULL, "%s", s);
	else
		cr_expect(strstr(s, "exception syndrome") == NULL, "an esr sentence without an esr:\n%s", s);
	free(s);
	crash_run_free(&run);
}
