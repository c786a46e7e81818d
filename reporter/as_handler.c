/*
 * as_handler.c — the only entry into the crash path; runs on the alternate
 * signal stack.  A short sequence of named steps:
 *
 *   pm_as_on_fatal()          kernel entry
 *     claim()                 CAS on pm_g.owner: exactly one thread reports
 *     report()                freeze others, images, header, exception,
 *                             threads, symbols, write both files
 *     notify()                the user's AS-safe callback
 *     chain_or_reraise()      previous handlers back, the signal re-queued
 *                             with its own siginfo: the process dies as it
 *                             would have without us (same status, same core)
 *
 * A second fatal signal while a report is being written:
 *   another thread        -> leaves its registers in its slot, waits for the
 *                            report (bounded), then dies of its own signal;
 *                            if the owner was a snapshot, reports its own crash
 *   the reporting thread  -> first time: a minimal report (header and
 *   (we faulted)             exception only), then the ORIGINAL signal;
 *                            again: the original signal at once
 */
#include "as_handler.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "as_capture.h"
#include "as_freeze.h"
#include "as_report.h"
#include "as_sys.h"
#include "as_write.h"

/* How long a second crashing thread waits for the report before dying itself. */
static const uint64_t second_crash_wait_ns = 10ull * 1000000000u;

static void
restore_previous_handlers(void)
{
	for (size_t i = 0; i < pm_g.signal_count; i++)
		sigaction(pm_g.signals[i], &pm_g.previous[i], NULL);
}

static const struct sigaction *
previous_for(int sig)
{
	for (size_t i = 0; i < pm_g.signal_count; i++)
		if (pm_g.signals[i] == sig)
			return &pm_g.previous[i];
	return NULL;
}

static bool
is_function(const struct sigaction *sa)
{
	return sa && sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Send sig to ourselves with its original siginfo; it arrives when the
 * handler returns (it is not blocked: SA_NODEFER). */
static void
requeue(int sig, const siginfo_t *info)
{
	pid_t pid = getpid(), tid = pm_sys_gettid();
	if (pm_sys_tgsigqueueinfo(pid, tid, sig, info) != 0)
		pm_sys_tgkill(pid, tid, sig);
}

/* End the process with sig now, whatever handlers say. */
static void
die_with(int sig, const siginfo_t *info)
{
	struct sigaction dfl;
	sigset_t set;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	requeue(sig, info);
	/* Still alive: the signal was ignored by force or could not be sent. */
	_exit(128 + sig);
}

static void
write_minimal_report(void)
{
	pm_report *r = &pm_g.report;
	r->thread_count = 0;
	r->image_count = 0;
	r->leb_count = 0;
	r->exception.triggered_thread = -1;
	pm_as_write_report(r);
}

static void
on_nested_fault(void)
{
	/* A fault after the report is on disk (the user callback) must not
	 * replace it with a smaller one. */
	if (atomic_fetch_add(&pm_g.nesting, 1) == 0 && !pm_g.written)
		write_minimal_report();
	die_with(pm_g.crash_signal, &pm_g.crash_info);
}

/*
 * Another thread owns the report.  Leave our registers for it and wait.
 * Returns true when the owner was a snapshot that has finished (no crash
 * was reported): then we report our own crash.
 */
static bool
wait_for_reporter(int sig, const siginfo_t *info, void *uctx, pid_t tid)
{
	int generation = pm_as_release_generation();
	pm_slot *s = pm_as_slot_claim(tid);
	if (s) {
		s->mc = ((ucontext_t *)uctx)->uc_mcontext;
		s->signal = sig;
		atomic_store(&s->state, SLOT_CAPTURED);
	}
	pm_as_park(generation, second_crash_wait_ns);
	if (pm_g.crash_signal == 0 && atomic_load(&pm_g.owner) == 0)
		return true;
	restore_previous_handlers();
	requeue(sig, info);
	return false;
}

static bool
report(pid_t tid, const struct timespec *now)
{
	pm_as_capture(tid, &pm_g.crash_mc, true, now);
	pm_as_fill_exception(&pm_g.report, &pm_g.facts, pm_g.crash_signal, &pm_g.crash_info);
	pm_as_capture_symbols();
	pm_g.written = pm_as_write_report(&pm_g.report);
	pm_as_write_minidump(&pm_g.report);
	return pm_g.written;
}

static void
notify(bool written)
{
	if (!pm_g.on_crash)
		return;
	pm_crash_info info = {
		.signal = pm_g.crash_signal,
		.si_code = pm_g.crash_info.si_code,
		.address = (uint64_t)(uintptr_t)pm_g.crash_info.si_addr,
		.crash_path = pm_g.crash_path,
		.json_path = pm_g.json_path,
		.written = written,
	};
	pm_g.on_crash(&info, pm_g.on_crash_ctx);
}

static void
chain_or_reraise(int sig, const siginfo_t *info)
{
	restore_previous_handlers();
	/* A previous handler may recover (a runtime using SIGSEGV on purpose):
	 * let the other threads go on.  Otherwise they stay parked and die. */
	if (is_function(previous_for(sig)))
		pm_as_release();
	requeue(sig, info);
}

void
pm_as_on_fatal(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	pid_t tid = pm_sys_gettid();
	int owner = 0;
	while (!atomic_compare_exchange_strong(&pm_g.owner, &owner, tid)) {
		if (owner == tid && pm_g.crash_signal != 0)
			on_nested_fault();
		if (!wait_for_reporter(sig, info, uctx, tid)) {
			errno = saved_errno;
			return;
		}
		owner = 0;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	pm_g.crash_signal = sig;
	pm_g.crash_info = *info;
	pm_g.crash_mc = ((ucontext_t *)uctx)->uc_mcontext;
	bool written = report(tid, &now);
	notify(written);
	chain_or_reraise(sig, info);
	errno = saved_errno;
}
