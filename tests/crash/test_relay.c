/*
 * test_relay.c — the freeze's requests sent by the threads that answered
 * (reporter/as_freeze_relay.h): with the relay, every thread of a crash of
 * 300 threads is captured, in the .crash and in the .json; and when the
 * first requests go to threads that never answer (they block every signal),
 * so that no thread relays, the reporting thread sends the rest itself and
 * the report is still whole.  An LD_PRELOAD shim (programs/relay_shim.c)
 * sees which thread sends each request.
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

enum { THREADS = 300, DEAF = 8 /* programs/many_walks.c */ };

typedef struct relay_run {
	crash_run run;
	char *dir, *log;
	char *env[2];
} relay_run;

static void
run_relay(relay_run *w, const char *program_mode)
{
	*w = (relay_run){ 0 };
	w->dir = pm_test_tmpdir();
	cr_assert(asprintf(&w->log, "%s/log", w->dir) > 0);
	cr_assert(asprintf(&w->env[0], "LD_PRELOAD=%s", pm_test_build("tests/libpm_relay_shim.so")) > 0);
	cr_assert(asprintf(&w->env[1], "PM_SHIM_LOG=%s", w->log) > 0);
	const char *env[] = { w->env[0], w->env[1], NULL };
	char threads[16];
	snprintf(threads, sizeof threads, "%d", THREADS);
	const char *args[] = { threads, program_mode, NULL };
	crash_run_program(&w->run, pm_test_build("tests/crash_many_walks"), args, env);
	cr_assert(WIFSIGNALED(w->run.status) && WTERMSIG(w->run.status) == SIGSEGV,
	          "the process dies of its own fault (status %#x)", w->run.status);
}

static void
relay_free(relay_run *w)
{
	crash_run_free(&w->run);
	for (int i = 0; i < 2; i++)
		free(w->env[i]);
	free(w->log);
	free(w->dir);
}

/* Did a thread other than the reporting one send a freeze request? */
static bool
relayed(const relay_run *w)
{
	if (access(w->log, R_OK) != 0)
		return false;
	char *log = pm_test_slurp(w->log, NULL);
	bool found = strstr(log, "relay\n") != NULL;
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

/* Every thread w<k> captured, parked 1 + k % 5 calls deep in descend()
 * under thread_main; each deaf<k> listed, not captured; the main thread
 * crashed.  The .crash shows the registers of the crashed thread alone:
 * regs, for the .json. */
static void
assert_whole(const pm_report *r, int deaf, bool regs)
{
	cr_assert_eq(r->thread_count, THREADS + deaf + 1 + crash_emulator_threads());
	bool seen[THREADS] = { false }, heard[DEAF] = { false };
	for (uint32_t i = 0; i < r->thread_count; i++) {
		const pm_thread *t = &r->threads[i];
		int k;
		if (t->crashed) {
			cr_assert_geq(crash_frame_index(r, t, "main"), 0);
			continue;
		}
		if (t->name && sscanf(t->name, "deaf%d", &k) == 1 && k >= 0 && k < deaf) {
			cr_assert(!t->captured && t->frame_count == 0, "deaf%d has no stack", k);
			heard[k] = true;
			continue;
		}
		if (!t->name || sscanf(t->name, "w%d", &k) != 1) {
			cr_assert(crash_is_emulator_thread(t) || (crash_emulator_threads() && t->frame_count == 0),
			          "thread %u (%s) is not the program's", i, t->name ? t->name : "no name");
			continue;
		}
		cr_assert(k >= 0 && k < THREADS && !seen[k], "w%d listed once", k);
		seen[k] = true;
		cr_assert(!regs || (t->captured && t->regs), "w%d captured", k);
		cr_assert_eq(count_symbol(t, "descend"), 1 + k % 5, "w%d: %d descend frames (%s)", k,
		             count_symbol(t, "descend"), t->note ? t->note : "");
		cr_assert_eq(count_symbol(t, "thread_main"), 1, "w%d: thread_main", k);
	}
	for (int k = 0; k < THREADS; k++)
		cr_assert(seen[k], "w%d is in the report", k);
	for (int k = 0; k < deaf; k++)
		cr_assert(heard[k], "deaf%d is in the report", k);
}

/*
 * Relaying is a chance, not a promise: on a loaded machine the threads
 * first asked may get no CPU before the reporting thread has sent every
 * request itself.  The crash is run again, a few times at most, until a
 * thread relayed; every run's report must be whole.
 */
enum { RELAY_TRIES = 6 };

Test(relay, every_thread_is_captured_when_the_answering_threads_send_the_requests, .timeout = 240)
{
	relay_run w;
	for (int i = 0; i < RELAY_TRIES; i++) {
		run_relay(&w, NULL);
		assert_whole(&w.run.json, 0, true);
		assert_whole(&w.run.text, 0, false);
		if (relayed(&w) || i + 1 == RELAY_TRIES)
			break;
		relay_free(&w);
	}
	cr_assert(relayed(&w), "a thread that answered sent freeze requests");
	relay_free(&w);
}

/* The first requests reach threads that block every signal: nobody relays,
 * and the reporting thread sends the rest itself. */
Test(relay, a_relay_that_never_comes_leaves_the_report_whole, .timeout = 240)
{
	relay_run w;
	run_relay(&w, "deaf");
	assert_whole(&w.run.json, DEAF, true);
	assert_whole(&w.run.text, DEAF, false);
	relay_free(&w);
}
