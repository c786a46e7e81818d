/*
 * as_handler.c — the only entry into the crash path; runs on the alternate
 * signal stack.  A short sequence of named steps:
 *
 *   as_on_fatal()          kernel entry (a fault in Go code goes to Go's
 *                          handler alone: is_go_fault)
 *     claim()                 CAS on as_g.owner: exactly one thread reports
 *     as_capture_ctx_of()     the capture context, passed down from here:
 *                             nothing below reads as_g
 *     report()                freeze others, images, header, exception,
 *                             threads, symbols, write both files
 *     notify()                the user's AS-safe callback
 *     chain_or_reraise()      a previous function handler is called from
 *                             here, with ours still armed (it may recover,
 *                             and the next fault gets its own report);
 *                             otherwise previous handlers back, the signal
 *                             re-queued with its own siginfo: the process
 *                             dies as it would have without us (same
 *                             status, same core)
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

#include "arch.h"
#include "as_asi.h"
#include "as_capture.h"
#include "as_context.h"
#include "as_cxx_exception.h"
#include "as_fds.h"
#include "as_freeze.h"
#include "as_prefault.h"
#include "as_report.h"
#include "as_sys.h"
#include "as_walker.h"
#include "as_write.h"
#include "start_data.h"

/* How long a second crashing thread waits for the report before dying itself. */
static const uint64_t second_crash_wait_ns = 10ull * 1000000000u;

static void
restore_previous_handlers(void)
{
	for (size_t i = 0; i < as_g.signal_count; i++)
		sigaction(as_g.signals[i], &as_g.previous[i], NULL);
}

static const struct sigaction *
previous_for(int sig)
{
	for (size_t i = 0; i < as_g.signal_count; i++)
		if (as_g.signals[i] == sig)
			return &as_g.previous[i];
	return NULL;
}

static bool
is_function(const struct sigaction *sa)
{
	return sa && sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* Send sig to ourselves with its original siginfo; it arrives when the
 * handler returns (it is not blocked: SA_NODEFER).  qemu-user takes a
 * queued signal with a kernel si_code for a fault of its own and aborts:
 * there, a plain tgkill. */
static void
requeue(int sig, const siginfo_t *info)
{
	pid_t pid = getpid(), tid = as_sys_gettid();
	if (as_g.facts.emulated || as_sys_tgsigqueueinfo(pid, tid, sig, info) != 0)
		as_sys_tgkill(pid, tid, sig);
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
write_minimal_report(const as_capture_ctx *c)
{
	pm_report *r = c->report;
	r->thread_count = 0;
	r->image_count = 0;
	r->leb_count = 0;
	/* The fault may have come before the exception was filled in (a
	 * seccomp filter trapping a call the capture makes): fill it again. */
	as_fill_exception(r, c->facts, c->signal, c->info);
	r->exception.triggered_thread = -1;
	as_write_report(c);
}

static void
on_nested_fault(pid_t tid)
{
	/* A fault after the report is on disk (the user callback) must not
	 * replace it with a smaller one. */
	if (atomic_fetch_add(&as_g.nesting, 1) == 0 && !as_g.written) {
		as_capture_ctx c = as_capture_ctx_of(&as_g, tid, &as_g.cap->crash_mc, as_g.crash_signal,
		                                     &as_g.cap->crash_info, NULL);
		write_minimal_report(&c);
	}
	die_with(as_g.crash_signal, &as_g.cap->crash_info);
}

/*
 * Another thread owns the report.  Leave our registers for it and wait.
 * Returns true when the owner was a snapshot that has finished (no crash
 * was reported): then we report our own crash.
 */
static bool
wait_for_reporter(int sig, const siginfo_t *info, void *uctx, pid_t tid)
{
	int generation = as_release_generation();
	pm_slot *s = as_slot_claim(tid);
	if (s) {
		s->mc = ((ucontext_t *)uctx)->uc_mcontext;
		s->signal = sig;
		atomic_store(&s->state, SLOT_CAPTURED);
	}
	as_park(generation, second_crash_wait_ns);
	if (as_g.crash_signal == 0 && atomic_load(&as_g.owner) == 0)
		return true;
	restore_previous_handlers();
	requeue(sig, info);
	return false;
}

static bool
report(const as_capture_ctx *c)
{
	/* Room for the files the capture opens, even when the app used every descriptor. */
	as_spares_free();
	as_capture(c);
	as_fill_exception(c->report, c->facts, c->signal, c->info);
	as_fill_reraised(c);
	as_fill_asi(c->report, c->facts, c->tid, c->scratch, c->scratch_cap);
	as_fill_last_exception(c->report, c->images, c->tid);
	as_fill_context(c->report, c->facts->tz_min, c->scratch, c->scratch_cap);
	as_capture_symbols(c);
	/* In as_g: a fault in what follows (the user callback) must find it. */
	as_g.written = as_write_report(c);
	as_write_minidump(c);
	return as_g.written;
}

static void
notify(const as_capture_ctx *c, bool written)
{
	if (!as_g.on_crash)
		return;
	pm_crash_info info = {
		.signal = c->signal,
		.si_code = c->info->si_code,
		.address = (uint64_t)(uintptr_t)c->info->si_addr,
		.crash_path = c->crash_path,
		.json_path = c->json_path,
		.written = written,
		.phases = *c->phases,
	};
	as_g.on_crash(&info, as_g.on_crash_ctx);
}

/* The fault a previous handler returned from (without jumping away); while
 * the same fault comes straight back, it is the handler's business, not a
 * new crash to report (a handler that returns without fixing anything
 * would otherwise fill the disk).  In .data beside as_g (start_data.h):
 * every fatal signal reads it first, and in .bss its page was one more
 * fault at the first crash. */
static PM_START_DATA struct {
	int sig;
	uint64_t pc;
	void *addr;
} returned_from;

static bool
is_returned_fault(int sig, const siginfo_t *info, const ucontext_t *uc)
{
	return returned_from.sig == sig && returned_from.addr == info->si_addr &&
	       returned_from.pc == as_arch_pc(&uc->uc_mcontext);
}

/* A signal a process sent while the program ignores it: under the preload
 * library, SIG_IGN set after postmortem is recorded while postmortem's
 * handler stays in the kernel (as_interpose.c), so the kernel cannot drop
 * it; dropped here, as it would have been.  A fault is never ignored, nor
 * SIGABRT: abort() ends the process whatever the handler (it puts SIG_DFL
 * back and raises again), so that is a crash to report. */
static bool
is_ignored(int sig, const siginfo_t *info)
{
	const struct sigaction *prev = previous_for(sig);
	return info->si_code <= 0 && sig != SIGABRT && prev && prev->sa_handler == SIG_IGN;
}

/* A fault in a Go executable's own code (reporter/go_text.c) is Go's to
 * turn into a panic the program may recover from, not a crash: Go's handler
 * gets it alone.  Only a fault the kernel reports: a signal sent by a
 * process lands at any pc. */
static bool
is_go_fault(int sig, const siginfo_t *info, const ucontext_t *uc)
{
	uint64_t pc = as_arch_pc(&uc->uc_mcontext);
	return info->si_code > 0 && pc >= as_g.facts.go_text_lo && pc < as_g.facts.go_text_hi &&
	       is_function(previous_for(sig));
}

/* The report is done: the other threads go on, and the next fault (or a
 * thread that crashed meanwhile and waits) is reported afresh. */
static void
end_report(void)
{
	as_g.crash_signal = 0;
	as_g.written = false;
	atomic_store(&as_g.nesting, 0);
	as_spares_take();
	as_reset_slots();
	atomic_store(&as_g.owner, 0);
	as_release();
}

/* Run a previous handler as the kernel would have: its mask, its flavour. */
static void
call_previous(const struct sigaction *prev, int sig, siginfo_t *info, ucontext_t *uc)
{
	sigset_t mask = prev->sa_mask;
	if (!(prev->sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (prev->sa_flags & SA_SIGINFO)
		prev->sa_sigaction(sig, info, uc);
	else
		prev->sa_handler(sig);
	returned_from.sig = sig;
	returned_from.pc = as_arch_pc(&uc->uc_mcontext);
	returned_from.addr = info->si_addr;
}

/* The thread running a previous handler from ours, 0 if none.  A fatal
 * signal that thread raises from inside that handler (abort() after logging)
 * belongs to the fault already reported: the process ends as it would have
 * without us.  The handler may also have jumped away; then a later fault
 * comes from the thread's own stack and is a new one.  Beside
 * returned_from, for the same reason. */
static PM_START_DATA _Atomic pid_t chaining_tid;

static bool
inside_previous_handler(pid_t tid, const ucontext_t *uc)
{
	if (atomic_load(&chaining_tid) != tid)
		return false;
	/* Did the interrupted code run on the alternate stack (the kernel
	 * saves its bounds in the context), where ours, and the previous
	 * handler we called, run? */
	uint64_t sp = as_arch_sp(&uc->uc_mcontext), base = (uint64_t)(uintptr_t)uc->uc_stack.ss_sp;
	if (sp > base && sp - base <= uc->uc_stack.ss_size)
		return true;
	atomic_store(&chaining_tid, 0);
	return false;
}

static void
chain_or_reraise(int sig, siginfo_t *info, ucontext_t *uc)
{
	const struct sigaction *prev = previous_for(sig);
	/* A one-shot handler (SA_RESETHAND) must not see a second fault. */
	if (is_function(prev) && !(prev->sa_flags & SA_RESETHAND)) {
		end_report();
		atomic_store(&chaining_tid, as_sys_gettid());
		call_previous(prev, sig, info, uc);
		atomic_store(&chaining_tid, 0);
		return;
	}
	restore_previous_handlers();
	requeue(sig, info);
}

__attribute__((noinline)) static void
on_fatal(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	pid_t tid = as_sys_gettid();
	int owner = 0;
	if (is_ignored(sig, info))
		return;
	if (is_returned_fault(sig, info, uctx) || is_go_fault(sig, info, uctx)) {
		call_previous(previous_for(sig), sig, info, uctx);
		errno = saved_errno;
		return;
	}
	returned_from.sig = 0;
	if (as_walker_on_fault(tid)) {
		/* A thread lent to the walks faulted in them: the reporting thread
		 * walks its share, and its slot keeps where it was frozen. */
		as_park(as_release_generation(), second_crash_wait_ns);
		restore_previous_handlers();
		requeue(sig, info);
		errno = saved_errno;
		return;
	}
	if (inside_previous_handler(tid, uctx)) {
		restore_previous_handlers();
		requeue(sig, info);
		errno = saved_errno;
		return;
	}
	while (!atomic_compare_exchange_strong(&as_g.owner, &owner, tid)) {
		if (owner == tid && as_g.crash_signal != 0)
			on_nested_fault(tid);
		if (!wait_for_reporter(sig, info, uctx, tid)) {
			errno = saved_errno;
			return;
		}
		owner = 0;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	/* What a crash writes besides the storage (state.h), fresh at the first: one call. */
	as_sys_populate(as_g.cap, sizeof *as_g.cap);
	as_g.crash_signal = sig;
	as_g.cap->crash_info = *info;
	as_g.cap->crash_mc = ((ucontext_t *)uctx)->uc_mcontext;
	as_capture_ctx c = as_capture_ctx_of(&as_g, tid, &as_g.cap->crash_mc, sig, &as_g.cap->crash_info, &now);
	as_prefault_entry(&c, &c, &((ucontext_t *)uctx)->uc_stack);
	bool written = report(&c);
	notify(&c, written);
	chain_or_reraise(sig, info, uctx);
	errno = saved_errno;
}

/* Only scalars here: no stack-protector check may read TLS before it is repaired. */
void
as_on_fatal(int sig, siginfo_t *info, void *uctx)
{
	uint64_t tls = as_arch_tls_repair();
	on_fatal(sig, info, uctx);
	as_arch_tls_put_back(tls);
}
