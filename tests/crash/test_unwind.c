/*
 * test_unwind.c — the crash unwinder on real stacks (issue 4).
 *
 * Call chains through libc, whose code has no frame pointers: a qsort
 * comparator, a pthread_once init routine, the application's own signal
 * handler (through the kernel's signal frame) and a worker thread, each
 * built -O2 without frame pointers, -O2 with them (_fp) and -O0 (_O0).  The
 * crashed thread must show every function of the chain in order, every
 * thread's walk must reach its outermost frame, and each frame must say how
 * it was found.
 *
 * Corrupted stacks (a return address overwritten, a frame smashed by a
 * memset): the report is still written, the walk ends with a reason, and the
 * process dies of its own signal.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "crash_util.h"

/* True when a frame's name is one of "a|b|c".  A name may carry a GCC clone
 * suffix ("msort_with_tmp.part.0"): it is the same function. */
static bool
name_is(const char *symbol, const char *alternatives)
{
	if (!symbol)
		return false;
	size_t n = strlen(symbol);
	for (const char *a = alternatives; *a;) {
		size_t k = strcspn(a, "|");
		if (k <= n && strncmp(symbol, a, k) == 0 && (symbol[k] == '\0' || symbol[k] == '.'))
			return true;
		a += k + (a[k] == '|');
	}
	return false;
}

static void
dump_frames(const pm_thread *t)
{
	static const char *const how[] = { "unknown", "context", "cfi", "fp", "scan" };
	for (uint32_t i = 0; i < t->frame_count; i++)
		cr_log_info("  %2u %-7s 0x%016llx %s", i, t->frames[i].how < 5 ? how[t->frames[i].how] : "?",
		            (unsigned long long)t->frames[i].address, t->frames[i].symbol ? t->frames[i].symbol : "???");
	cr_log_info("  walk ended: %s", t->note ? t->note : "(outermost frame)");
}

#if defined(__aarch64__)
/* The vDSO's signal trampoline; threads begin at glibc's thread_start (clone3.S). */
#define SIGRETURN "__kernel_rt_sigreturn"
#define THREAD_START "thread_start"
#else
#define SIGRETURN "__restore_rt"
#define THREAD_START "clone3|clone"
#endif

/* Every name of `chain` (innermost first) appears on t's stack, in order. */
static void
expect_chain(const pm_thread *t, const char *const *chain)
{
	uint32_t at = 0;
	for (const char *const *c = chain; *c; c++) {
		while (at < t->frame_count && !name_is(t->frames[at].symbol, *c))
			at++;
		cr_expect(at < t->frame_count, "%s is missing from the crashed thread's stack (or out of order)", *c);
		if (at == t->frame_count) {
			dump_frames(t);
			return;
		}
		at++;
	}
}

/* The walk reached the thread's outermost frame, and every frame says how it
 * was found: registers for frame 0 and for the frame a kernel signal frame
 * restores, CFI for all the others (libc has no frame pointers to follow). */
static void
expect_complete_walk(const pm_report *r, const pm_thread *t, uint32_t signal_frames)
{
	const char *outermost = t->id == (uint64_t)r->header.pid ? "_start" : THREAD_START;
	cr_assert_gt(t->frame_count, 0, "thread %llu has no frames", (unsigned long long)t->id);
	const pm_frame *last = &t->frames[t->frame_count - 1];
	cr_expect(t->note == NULL, "the walk of thread %llu stopped early: %s", (unsigned long long)t->id,
	          t->note ? t->note : "");
	cr_expect(name_is(last->symbol, outermost), "thread %llu ends at %s, not %s", (unsigned long long)t->id,
	          last->symbol ? last->symbol : "???", outermost);
	cr_expect_eq(t->frames[0].how, PM_HOW_CONTEXT, "frame 0 must come from the registers");
	uint32_t context = 0;
	for (uint32_t i = 1; i < t->frame_count; i++) {
		const pm_frame *f = &t->frames[i];
		context += f->how == PM_HOW_CONTEXT;
		cr_expect(f->how == PM_HOW_CFI || f->how == PM_HOW_CONTEXT, "frame %u (%s) was found by how=%u", i,
		          f->symbol ? f->symbol : "???", f->how);
		cr_expect(f->image >= 0, "frame %u (0x%llx) is in no image", i, (unsigned long long)f->address);
	}
	cr_expect_eq(context, signal_frames, "%u frames restored from a signal context, expected %u", context,
	             signal_frames);
	if (t->note || !name_is(last->symbol, outermost))
		dump_frames(t);
}

/* The crashed thread shows `chain`; when main_chain is given, so does the main thread. */
static void
check_chains(const char *sample, const char *const *chain, uint32_t signal_frames, const char *const *main_chain)
{
	crash_run run;
	crash_run_sample(&run, sample, NULL);
	const pm_report *r = &run.json;
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "%s should die of SIGSEGV, status 0x%x",
	          sample, run.status);
	int32_t ct = pm_report_crashed_thread(r);
	cr_assert(ct >= 0, "no crashed thread");
	expect_chain(&r->threads[ct], chain);
	for (uint32_t i = 0; main_chain && i < r->thread_count; i++)
		if (r->threads[i].id == (uint64_t)r->header.pid)
			expect_chain(&r->threads[i], main_chain);
	uint32_t emulator = crash_emulator_threads();
	for (uint32_t i = 0; i < r->thread_count; i++) {
		if (emulator && crash_is_emulator_thread(&r->threads[i])) {
			emulator--;
			continue;
		}
		expect_complete_walk(r, &r->threads[i], (int32_t)i == ct ? signal_frames : 0);
	}
	cr_expect_eq(emulator, 0, "qemu's helper thread is not listed as blocking the freeze signal");
	crash_run_free(&run);
}

static void
check_chain(const char *sample, const char *const *chain, uint32_t signal_frames)
{
	check_chains(sample, chain, signal_frames, NULL);
}

/* One test per build flavour of a sample; the chain is innermost first. */
#define CHAIN_TEST(sample, flavour, signal_frames, ...)                                   \
	Test(unwind, sample##flavour, .timeout = 60)                                      \
	{                                                                                 \
		static const char *const chain[] = { __VA_ARGS__, NULL };                 \
		check_chain(#sample #flavour, chain, signal_frames);                      \
	}
#define CHAIN_TESTS(sample, signal_frames, ...)                 \
	CHAIN_TEST(sample, , signal_frames, __VA_ARGS__)        \
	CHAIN_TEST(sample, _fp, signal_frames, __VA_ARGS__)     \
	CHAIN_TEST(sample, _O0, signal_frames, __VA_ARGS__)

/* Below main, on every main thread. */
#define START "__libc_start_call_main", "__libc_start_main|__libc_start_main_impl", "_start"

/* qsort itself tail-calls qsort_r, so it leaves no frame of its own. */
CHAIN_TESTS(unwind_qsort, 0, "compare_and_crash", "msort_with_tmp", "qsort_r|__qsort_r", "sort_things", "main",
            START)
/* Likewise pthread_once's fast path jumps to __pthread_once_slow. */
CHAIN_TESTS(unwind_once, 0, "init_and_crash", "__pthread_once_slow", "run_once", "main", START)
CHAIN_TESTS(unwind_signal, 1, "crash_in_handler", "on_usr1", SIGRETURN, "__pthread_kill_implementation",
            "raise|gsignal", "raise_usr1", "main", START)
CHAIN_TESTS(unwind_worker, 0, "crash_in_worker", "worker_descend", "worker_main", "start_thread", THREAD_START)

#if defined(__aarch64__)
/* Is pointer authentication on here?  PACIA1716 (a hint: a no-op without
 * it) signs x17 with x16 as the modifier; the _pac tests prove something
 * only if it changes the value. */
static bool
pac_signs(void)
{
	uint64_t v = (uint64_t)(uintptr_t)&pac_signs, x = v;
	__asm__ volatile("mov x17, %0\n\tmov x16, sp\n\t.inst 0xd503219f\n\tmov %0, x17" : "+r"(x) : : "x16", "x17");
	return x != v;
}

Test(unwind, pointer_authentication_is_on)
{
	cr_assert(pac_signs(), "return addresses are not signed here: the _pac samples would test nothing");
}

CHAIN_TEST(unwind_qsort, _pac, 0, "compare_and_crash", "msort_with_tmp", "qsort_r|__qsort_r", "sort_things", "main",
           START)
CHAIN_TEST(unwind_once, _pac, 0, "init_and_crash", "__pthread_once_slow", "run_once", "main", START)
CHAIN_TEST(unwind_signal, _pac, 1, "crash_in_handler", "on_usr1", SIGRETURN, "__pthread_kill_implementation",
           "raise|gsignal", "raise_usr1", "main", START)
CHAIN_TEST(unwind_worker, _pac, 0, "crash_in_worker", "worker_descend", "worker_main", "start_thread", THREAD_START)
#endif

/* The main thread is stopped in an ifunc resolver that lazy binding runs
 * (main → PLT → the dynamic linker's trampoline → _dl_fixup → resolver):
 * its walk goes on through main to _start. */
#define LAZY_BIND_TEST(flavour)                                                                    \
	Test(unwind, unwind_lazy_bind##flavour, .timeout = 60)                                     \
	{                                                                                          \
		static const char *const chain[] = { "crash_in_worker", "worker_main", "start_thread", \
			                             THREAD_START, NULL };                         \
		static const char *const main_chain[] = { "lazy_target|resolve_lazy_target", "bind_lazily", "main", \
			                                  START, NULL };                               \
		check_chains("unwind_lazy_bind" #flavour, chain, 0, main_chain);                   \
	}
LAZY_BIND_TEST()
LAZY_BIND_TEST(_fp)
LAZY_BIND_TEST(_O0)

/* A corrupt stack: the report is whole, the walk stops with a reason and
 * reports no garbage, and the process dies of its own signal. */
static void
check_corrupt(const char *sample, const char *function, const char *const *env)
{
	crash_run run;
	crash_run_sample(&run, sample, env);
	const pm_report *r = &run.json;
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "%s should die of SIGSEGV, status 0x%x",
	          sample, run.status);
	cr_expect_eq(run.reports, 1);
	cr_expect(r->complete, "the JSON twin is not marked complete");
	/* A fault inside the handler leaves only a minimal report, without threads. */
	int32_t ct = pm_report_crashed_thread(r);
	cr_assert(ct >= 0 && r->threads[ct].frame_count > 0, "no crashed thread with frames: did the handler fault?");
	const pm_thread *t = &r->threads[ct];
	cr_expect(name_is(t->frames[0].symbol, function), "frame 0 is %s, not %s",
	          t->frames[0].symbol ? t->frames[0].symbol : "???", function);
	cr_expect(t->note != NULL, "the walk of a corrupt stack ended without a reason");
	for (uint32_t i = 0; i < t->frame_count; i++)
		cr_expect(t->frames[i].image >= 0, "frame %u (0x%llx) is in no image: garbage reported as a frame", i,
		          (unsigned long long)t->frames[i].address);
	if (!t->note)
		dump_frames(t);
	crash_run_free(&run);
}

static const char *const zero_fill[] = { "SMASH_BYTE=0", NULL };

Test(unwind, smash_return, .timeout = 60) { check_corrupt("smash_return", "smash_return_and_crash", NULL); }
Test(unwind, smash_return_fp, .timeout = 60) { check_corrupt("smash_return_fp", "smash_return_and_crash", NULL); }
Test(unwind, smash_frame, .timeout = 60) { check_corrupt("smash_frame", "smash_frame_and_crash", NULL); }
Test(unwind, smash_frame_fp, .timeout = 60) { check_corrupt("smash_frame_fp", "smash_frame_and_crash", NULL); }
/* A null return address read from a smashed stack is not the outermost frame. */
Test(unwind, smash_frame_zero, .timeout = 60) { check_corrupt("smash_frame", "smash_frame_and_crash", zero_fill); }
Test(unwind, smash_frame_zero_fp, .timeout = 60)
{
	check_corrupt("smash_frame_fp", "smash_frame_and_crash", zero_fill);
}
