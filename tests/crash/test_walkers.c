/*
 * test_walkers.c — the frozen thread lent to the stack walks
 * (reporter/capture/as_walker.c): with it, with it faulting in its share, and with
 * it too late, every thread of a many-threaded crash is in the report with
 * the stack the program gave it, and the three reports hold the same
 * threads and frames.  An LD_PRELOAD shim (programs/walk_shim.c) sees the
 * lent thread's reads, and makes it fault or sleep.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

/* Well past the least number of threads the reporter lends from (as_threads.c). */
enum { THREADS = 150 };

typedef struct walk_run {
	crash_run run;
	char *dir, *log;
	char *env[3];
} walk_run;

static void
run_walks_with(walk_run *w, const char *mode, const char *program_mode)
{
	w->dir = pm_test_tmpdir();
	cr_assert(asprintf(&w->log, "%s/log", w->dir) > 0);
	cr_assert(asprintf(&w->env[0], "LD_PRELOAD=%s", pm_test_build("tests/libpm_walk_shim.so")) > 0);
	cr_assert(asprintf(&w->env[1], "PM_SHIM_LOG=%s", w->log) > 0);
	cr_assert(asprintf(&w->env[2], "PM_SHIM_MODE=%s", mode) > 0);
	const char *env[] = { w->env[0], w->env[1], w->env[2], NULL };
	char threads[16];
	snprintf(threads, sizeof threads, "%d", THREADS);
	const char *args[] = { threads, program_mode, NULL };
	crash_run_program(&w->run, pm_test_build("tests/crash_many_walks"), args, env);
}

static void
run_walks(walk_run *w, const char *mode)
{
	run_walks_with(w, mode, NULL);
	cr_assert(WIFSIGNALED(w->run.status) && WTERMSIG(w->run.status) == SIGSEGV,
	          "the process dies of its own fault (status %#x)", w->run.status);
}

static void
walk_free(walk_run *w)
{
	crash_run_free(&w->run);
	for (int i = 0; i < 3; i++)
		free(w->env[i]);
	free(w->log);
	free(w->dir);
}

/* Is a thread lent at all?  Under qemu-user reads go through the pipe
 * (docs/arm64.md), one reader at a time: the reporting thread walks alone. */
static bool
lends(void)
{
	return crash_emulator_threads() == 0;
}

/* Did the lent thread read memory (walk a batch) during the crash? */
static bool
lent_read(const walk_run *w)
{
	if (access(w->log, R_OK) != 0)
		return false;
	char *log = pm_test_slurp(w->log, NULL);
	bool found = strstr(log, "other\n") != NULL;
	free(log);
	return found;
}

static int
count_symbol(const pm_thread *t, const char *symbol)
{
	int n = 0;
	for (uint32_t i = 0; i < t->frame_count; i++)
		n += t->frames[i].symbol && strcmp(t->frames[i].symbol, symbol) == 0;
	return n;
}

/* Every thread w<k> is parked 1 + k % 5 calls deep in descend() under
 * thread_main, walked to its end; the main thread crashed.  The .crash
 * shows the registers of the crashed thread alone: regs, for the .json. */
static void
assert_every_stack(const pm_report *r, bool regs)
{
	cr_assert_eq(r->thread_count, THREADS + 1 + crash_emulator_threads());
	bool seen[THREADS] = { false };
	uint32_t emulator = 0;
	for (uint32_t i = 0; i < r->thread_count; i++) {
		const pm_thread *t = &r->threads[i];
		cr_assert_eq(t->number, i);
		int k;
		/* The .crash does not say why a thread has no frames: there, qemu's
		 * own thread is one with none that is not ours. */
		if (crash_is_emulator_thread(t) || (emulator < crash_emulator_threads() && t->frame_count == 0 &&
		                                    !(t->name && sscanf(t->name, "w%d", &k) == 1))) {
			emulator++;
			continue;
		}
		if (t->crashed) {
			cr_assert_eq(r->exception.triggered_thread, (int32_t)i);
			cr_assert_geq(crash_frame_index(r, t, "main"), 0);
			continue;
		}
		cr_assert(t->name && sscanf(t->name, "w%d", &k) == 1 && k >= 0 && k < THREADS, "thread %u: %s", i,
		          t->name ? t->name : "(no name)");
		cr_assert(!seen[k], "w%d listed twice", k);
		seen[k] = true;
		cr_assert(!regs || (t->captured && t->regs), "w%d captured", k);
		cr_assert_eq(count_symbol(t, "descend"), 1 + k % 5, "w%d: %d descend frames", k, count_symbol(t, "descend"));
		cr_assert_eq(count_symbol(t, "thread_main"), 1, "w%d: thread_main", k);
		cr_assert_lt(crash_frame_index(r, t, "descend"), crash_frame_index(r, t, "thread_main"));
	}
	for (int k = 0; k < THREADS; k++)
		cr_assert(seen[k], "w%d is in the report", k);
}

/* The same threads, in the same order, with the same frames (by name and
 * how each was found) in two reports of two runs of the program. */
static void
assert_same_walks(const pm_report *a, const pm_report *b)
{
	cr_assert_eq(a->thread_count, b->thread_count);
	for (uint32_t i = 0; i < a->thread_count; i++) {
		const pm_thread *s = &a->threads[i], *t = &b->threads[i];
		cr_assert_str_eq(s->name ? s->name : "", t->name ? t->name : "");
		cr_assert_eq(s->frame_count, t->frame_count, "%s: %u frames against %u", s->name, s->frame_count,
		             t->frame_count);
		cr_assert_eq(s->crashed, t->crashed);
		for (uint32_t f = 0; f < s->frame_count; f++) {
			cr_assert_str_eq(s->frames[f].symbol ? s->frames[f].symbol : "",
			                 t->frames[f].symbol ? t->frames[f].symbol : "");
			cr_assert_eq(s->frames[f].how, t->frames[f].how);
			cr_assert_eq(s->frames[f].symbol_offset, t->frames[f].symbol_offset);
		}
	}
}

/* Thread names are those the threads set, so two runs list them alike
 * only up to order: order each report's threads by name first. */
static int
by_name(const void *x, const void *y)
{
	const pm_thread *a = x, *b = y;
	return strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

static void
sort_threads(pm_report *r)
{
	qsort(r->threads, r->thread_count, sizeof *r->threads, by_name);
}

/*
 * Lending is a chance, not a promise: on a loaded machine the lent thread
 * may get no CPU before the reporting thread has taken every batch, and
 * then it walks nothing (the report is whole all the same).  A test of
 * what the lent thread does runs the crash again, a few times at most,
 * until it began; every run's report must be whole.
 */
enum { LEND_TRIES = 6 };

static void
run_lending(walk_run *w, const char *mode, const char *program_mode)
{
	for (int i = 0; i < LEND_TRIES; i++) {
		*w = (walk_run){ 0 };
		run_walks_with(w, mode, program_mode);
		if (program_mode) /* "recover": the app's handler recovers */
			cr_assert(WIFEXITED(w->run.status) && WEXITSTATUS(w->run.status) == 0,
			          "every thread ran again on its own CPUs and ended (status %#x)", w->run.status);
		else
			cr_assert(WIFSIGNALED(w->run.status) && WTERMSIG(w->run.status) == SIGSEGV,
			          "the process dies of its own fault (status %#x)", w->run.status);
		assert_every_stack(&w->run.json, true);
		if (lent_read(w) || !lends() || i + 1 == LEND_TRIES)
			return;
		walk_free(w);
	}
}

Test(walkers, a_lent_thread_walks_part_and_every_stack_is_whole, .timeout = 240)
{
	walk_run w;
	run_lending(&w, "", NULL);
	cr_assert_eq(lent_read(&w), lends(), "a frozen thread walked some of the threads (or none, under qemu-user)");
	assert_every_stack(&w.run.text, false);
	walk_free(&w);
}

/* A run in shim mode `mode` (the lent thread's share walked again by the
 * reporting thread) reports every stack whole, and the same walks as a
 * run in which the lent thread does its share. */
static void
expect_same_as_lent(const char *mode, const char *what)
{
	walk_run other, lent = { 0 };
	run_lending(&other, mode, NULL);
	cr_assert(lent_read(&other) || !lends(), "%s", what);
	assert_every_stack(&other.run.text, false);
	run_walks(&lent, "");
	sort_threads(&lent.run.json);
	sort_threads(&other.run.json);
	assert_same_walks(&lent.run.json, &other.run.json);
	walk_free(&other);
	walk_free(&lent);
}

Test(walkers, a_fault_in_the_lent_share_loses_no_thread, .timeout = 240)
{
	expect_same_as_lent("fault", "the lent thread began, and faulted");
}

Test(walkers, a_late_lent_thread_is_not_waited_for, .timeout = 240)
{
	expect_same_as_lent("late", "the lent thread began, and slept");
}

/* The app's own handler recovers after the report: the lent thread, like
 * every other, runs again, on its own CPUs, and ends when asked. */
Test(walkers, after_a_recovered_crash_the_lent_thread_is_the_app_s_again, .timeout = 240)
{
	walk_run w;
	run_lending(&w, "", "recover");
	cr_assert_eq(lent_read(&w), lends());
	walk_free(&w);
}
