/*
 * as_handler.c — the only entry into the crash path; runs on the alternate
 * signal stack.  A short sequence of named steps:
 *
 *   as_on_fatal()          kernel entry (a fault in Go code goes to Go's
 *                          handler alone: is_go_fault)
 *     runtime first        a fault the kernel raised, with a handler beside
 *                          ours (a runtime's): that handler is called first
 *                          (as_chain.c) and nothing is written unless it
 *                          gives up (docs/runtimes.md): then the fault it
 *                          was given is reported and the process dies
 *     claim()                 CAS on as_g.owner: exactly one thread reports
 *     as_capture_ctx_of()     the capture context, passed down from here:
 *                             nothing below reads as_g
 *     report()                freeze others, images, header, exception,
 *                             threads, symbols, write both files
 *     as_upload_now_start()   the uploader, when a destination is known
 *                             (as_upload_now.c): the report leaves at once
 *     notify()                the user's AS-safe callback
 *     chain_or_reraise()      a previous function handler is called from
 *                             here, with ours still armed (a signal sent
 *                             to the process, abort(), a Go executable's C
 *                             code); otherwise previous handlers back, the
 *                             signal re-queued with its own siginfo: the
 *                             process dies as it would have without us
 *                             (same status, same core)
 *
 * A handler given a fault first gives up by putting the default action back
 * and returning, by a fatal signal from inside it (abort(), a re-raise, a
 * fault of its own), by _exit (as_exit.c), by hanging (the watch timer's
 * probe, as_control.c) or by returning while the same fault comes back.
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
#include "as_chain.h"
#include "as_handed.h"
#include "as_interpose.h"
#include "as_landing.h"
#include "as_memory.h"
#include "as_unwind.h"
#include "as_upload_now.h"

/* How long a second crashing thread waits for the report before dying itself. */
static const uint64_t second_crash_wait_ns = 10ull * 1000000000u;
/* Handlers given a fault inside a handler given one (a runtime's for faults
 * in its own crash output): beyond this depth the fault is the last. */
enum { MAX_CHAIN_DEPTH = 4 };

static void
restore_previous_handlers(void)
{
	for (size_t i = 0; i < as_g.signal_count; i++)
		sigaction(as_g.signals[i], &as_g.previous[i], NULL);
}

static struct sigaction *
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

static bool
is_fatal(int sig)
{
	return previous_for(sig) != NULL;
}

bool
as_fatal_action(int sig, const struct sigaction *beside, struct sigaction *out)
{
	if (!is_fatal(sig))
		return false;
	bool function = is_function(beside);
	memset(out, 0, sizeof *out);
	out->sa_sigaction = as_on_fatal;
	/* The kernel applies the mask of the handler beside ours, which we may
	 * call first, so that the call needs no system call; minus our fatal
	 * signals (a fault inside it must come back to us, not end the process
	 * with no word) and the control signal (the watch's probe must reach a
	 * handler that hangs).  The report blocks the control signal itself. */
	if (function)
		out->sa_mask = beside->sa_mask;
	else
		sigemptyset(&out->sa_mask);
	for (size_t i = 0; i < as_g.signal_count; i++)
		sigdelset(&out->sa_mask, as_g.signals[i]);
	sigdelset(&out->sa_mask, as_g.freeze_signal);
	/* Past RLIMIT_FSIZE a write sends SIGXFSZ, whose default action would
	 * kill the process with the wrong signal; blocked, the write fails with
	 * EFBIG instead.  The fatal signals all sort before it, so the process
	 * still dies of its own. */
	sigaddset(&out->sa_mask, SIGXFSZ);
	out->sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	/* Where nothing keeps ours in front (an app that links libpostmortem), a
	 * handler that puts the default action back and raises its signal
	 * again counts on the signal being blocked until it returns, as the
	 * kernel would have it: the signal then reaches ours first. */
	if (function && !(beside->sa_flags & SA_NODEFER) && !as_interpose_active())
		out->sa_flags &= ~SA_NODEFER;
	return true;
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
	/* Still alive: the signal was ignored by force or could not be sent.
	 * Not through _exit (as_exit.c), which would look for a handler's call
	 * to report: the fault is reported already, or was never handed. */
	as_sys_exit(128 + sig);
}

/* The mask a report is written under: no control request but the freeze's
 * answers (which other threads send), and every fatal signal deliverable,
 * so that a fault in the capture comes back to on_nested_fault — but one
 * already pending: a handler that put the default action back and raised
 * its signal again while it was blocked must not end the process before
 * the report (it ends it after, die_with). */
static void
report_mask(void)
{
	sigset_t set, pending;
	sigemptyset(&set);
	if (sigpending(&pending) != 0)
		sigemptyset(&pending);
	for (size_t i = 0; i < as_g.signal_count; i++)
		if (!sigismember(&pending, as_g.signals[i]))
			sigaddset(&set, as_g.signals[i]);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sigemptyset(&set);
	sigaddset(&set, as_g.freeze_signal);
	sigprocmask(SIG_BLOCK, &set, NULL);
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
	as_fill_exception(r, c->facts, c->signal, c->info, &c->target);
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
wait_for_reporter(int sig, const siginfo_t *info, const mcontext_t *mc, pid_t tid)
{
	int generation = as_release_generation();
	pm_slot *s = as_slot_claim(tid);
	if (s) {
		s->mc = *mc;
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

/* Become the reporting thread; false when another thread reported a crash
 * meanwhile (our signal is re-queued: the process is ending). */
static bool
claim(int sig, const siginfo_t *info, const mcontext_t *mc, pid_t tid)
{
	int owner = 0;
	while (!atomic_compare_exchange_strong(&as_g.owner, &owner, tid)) {
		if (owner == tid && as_g.crash_signal != 0)
			on_nested_fault(tid);
		if (!wait_for_reporter(sig, info, mc, tid))
			return false;
		owner = 0;
	}
	return true;
}

static bool
report(const as_capture_ctx *c)
{
	/* Room for the files the capture opens, even when the app used every descriptor. */
	as_spares_free();
	as_capture(c);
	as_fill_exception(c->report, c->facts, c->signal, c->info, &c->target);
	as_fill_reraised(c);
	as_fill_asi(c->report, c->facts, c->tid, &c->target.mem, c->scratch, c->scratch_cap);
	as_fill_handed(c);
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

/* The owner reports fault (sig, info, mc), which the handler at `handed`
 * was given first (NULL: none), and notifies.  `moved`: the last fault the
 * thread's handler moved the context of (NULL: none). */
static void
capture(pid_t tid, int sig, const siginfo_t *info, const mcontext_t *mc, const as_chain_rec *handed,
        const as_chain_moved *moved, const stack_t *alt)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	/* What a crash writes besides the storage (state.h), fresh at the first: one call. */
	as_sys_populate(as_g.cap, sizeof *as_g.cap);
	as_g.crash_signal = sig;
	as_g.cap->crash_info = *info;
	as_g.cap->crash_mc = *mc;
	as_capture_ctx c = as_capture_ctx_of(&as_g, tid, &as_g.cap->crash_mc, sig, &as_g.cap->crash_info, &now);
	c.handed = handed;
	c.moved = moved;
	as_prefault_entry(&c, &c, alt);
	bool written = report(&c);
	/* Before the app's callback, which may fault or hang: the report is durable. */
	uint64_t t = as_sys_now_ns();
	if (written && as_upload_now_start() != AS_UPLOAD_OFF)
		c.phases->upload = as_sys_now_ns() - t;
	notify(&c, written);
}

/* The fault a handler beside ours was given first and gave up on (how:
 * first->gave_up): reported once, by the thread that took it.  Returns
 * false when another thread's crash was reported instead (the process is
 * ending). */
static bool
report_handed(as_chain_rec *first)
{
	if (first->reported)
		return true;
	first->reported = true;
	report_mask();
	/* The report names the thread as the kernel knows it (as_sys_tid). */
	pid_t tid = as_sys_gettid();
	if (!claim(first->sig, &first->info, &first->mc, tid))
		return false;
	stack_t alt;
	if (as_sys_sigaltstack(NULL, &alt) != 0)
		alt.ss_flags = SS_DISABLE;
	capture(tid, first->sig, &first->info, &first->mc, first, NULL, &alt);
	return true;
}

static as_chain_rec *
outermost(as_chain_rec *rec)
{
	while (rec->outer)
		rec = rec->outer;
	return rec;
}

static int
depth(const as_chain_rec *rec)
{
	int d = 1;
	while ((rec = rec->outer) != NULL)
		d++;
	return d;
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

/* A fault in a Go executable's own code (reporter/install/go_text.c) is Go's to
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

/* A fault the kernel raised, which a runtime beside us may resolve (a JIT's
 * null check, a safepoint poll, a guard page, a wasm bounds check, a
 * division, a trap, a seccomp call it emulates): its handler gets it first.
 * Not in a Go executable: Go ends the process with its own exit system
 * call, which nothing can see, so a fault outside Go's code is reported
 * first there, as before. */
static bool
runtime_first(int sig, const siginfo_t *info)
{
	return info->si_code > 0 && sig != SIGABRT && is_function(previous_for(sig)) && !as_g.facts.go_exe;
}

/* After a handler returned from a fault without moving the context: the
 * fault comes back to the default action (the handler put it back), so it
 * is the last.  Under the preload library ours stays in front and the
 * program's choice is recorded; otherwise the kernel holds it. */
static bool
default_now(int sig)
{
	if (as_interpose_active())
		return !is_function(previous_for(sig));
	struct sigaction cur;
	if (sigaction(sig, NULL, &cur) != 0)
		return false;
	return cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN;
}

/* Hand the fault to the handler beside ours (inside the call `outer`, or
 * NULL); report it and end the process if that handler gives up by
 * returning.  Otherwise return: the fault is resolved, or runs again. */
static void
hand_first(as_chain_rec *outer, int sig, siginfo_t *info, ucontext_t *uc, pid_t tid)
{
	as_chain_rec rec;
	rec.reported = false;
	if (as_chain_call(&rec, outer, previous_for(sig), sig, info, uc, tid, as_g.freeze_signal,
	                  as_g.handler_timeout_ms))
		return;
	as_chain_rec *first = outer ? outermost(outer) : &rec;
	if (default_now(sig)) {
		/* Raised again while blocked, the signal waits for the handler's return. */
		sigset_t pending;
		first->gave_up = sigpending(&pending) == 0 && sigismember(&pending, sig) ? AS_GAVE_UP_SIGNAL
		                                                                         : AS_GAVE_UP_DEFAULT;
		first->gave_up_arg = sig;
	} else if (!outer && as_chain_loops(tid, sig, info, uc, as_g.handler_timeout_ms)) {
		first->gave_up = AS_GAVE_UP_LOOP;
		first->gave_up_arg = (int)as_g.handler_timeout_ms;
	} else {
		return;
	}
	if (report_handed(first))
		die_with(first->sig, &first->info);
}

/* A fatal signal from inside a handler's call on this thread.  A fault that
 * another of its handlers takes (a runtime's for faults in its own crash
 * output) goes to it first, as any; anything else is the end: the fault
 * the call began with is reported (once), and this signal ends the process
 * as it would have (a signal sent by it meets the handlers that were
 * there before ours). */
static void
inside_call(as_chain_rec *inside, int sig, siginfo_t *info, ucontext_t *uc, pid_t tid)
{
	as_chain_rec *first = outermost(inside);
	const struct sigaction *prev = previous_for(sig);
	uint64_t handler = prev ? (uint64_t)(uintptr_t)prev->sa_sigaction : 0;
	if (!first->reported && runtime_first(sig, info) && handler != inside->handler &&
	    depth(inside) < MAX_CHAIN_DEPTH) {
		hand_first(inside, sig, info, uc, tid);
		return;
	}
	bool fault = info->si_code > 0 && sig != SIGABRT;
	if (!first->reported) {
		first->gave_up = fault ? AS_GAVE_UP_FAULT : AS_GAVE_UP_SIGNAL;
		first->gave_up_arg = sig;
		if (!report_handed(first))
			return;
	}
	/* A fault would run again into the handler that faulted. */
	if (fault)
		die_with(sig, info);
	restore_previous_handlers();
	requeue(sig, info);
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

/* After the report, a previous function handler runs as the kernel would
 * have run it (its mask, its flavour); a fatal signal it raises while it
 * runs (abort() after logging) belongs to the fault already reported.
 * Otherwise the previous handlers are put back and the signal re-queued. */
static void
chain_or_reraise(int sig, siginfo_t *info, ucontext_t *uc, pid_t tid)
{
	struct sigaction *prev = previous_for(sig);
	/* A one-shot handler (SA_RESETHAND) must not see a second fault. */
	if (is_function(prev) && !(prev->sa_flags & SA_RESETHAND)) {
		end_report();
		sigset_t mask = prev->sa_mask;
		if (!(prev->sa_flags & SA_NODEFER))
			sigaddset(&mask, sig);
		sigprocmask(SIG_BLOCK, &mask, NULL);
		as_chain_rec rec = { .reported = true };
		as_chain_call(&rec, NULL, prev, sig, info, uc, tid, as_g.freeze_signal, as_g.handler_timeout_ms);
		return;
	}
	restore_previous_handlers();
	requeue(sig, info);
}

__attribute__((noinline)) static void
on_fatal(int sig, siginfo_t *info, void *uctx)
{
	ucontext_t *uc = uctx;
	pid_t tid = as_sys_tid();
	if (is_ignored(sig, info))
		return;
	if (is_go_fault(sig, info, uc)) {
		hand_first(NULL, sig, info, uc, tid);
		return;
	}
	if (as_walker_on_fault(tid)) {
		/* A thread lent to the walks faulted in them: the reporting thread
		 * walks its share, and its slot keeps where it was frozen. */
		as_park(as_release_generation(), second_crash_wait_ns);
		restore_previous_handlers();
		requeue(sig, info);
		return;
	}
	as_chain_rec *inside = as_chain_inside(tid, uc);
	if (inside) {
		inside_call(inside, sig, info, uc, tid);
		return;
	}
	if (runtime_first(sig, info)) {
		hand_first(NULL, sig, info, uc, tid);
		return;
	}
	report_mask();
	tid = as_sys_gettid();
	if (!claim(sig, info, &uc->uc_mcontext, tid))
		return;
	as_chain_moved moved;
	bool was_moved = as_chain_last_moved(tid, as_g.handler_timeout_ms, &moved);
	capture(tid, sig, info, &uc->uc_mcontext, NULL, was_moved ? &moved : NULL, &uc->uc_stack);
	chain_or_reraise(sig, info, uc, tid);
}

/* Only scalars here: no stack-protector check may read TLS before it is repaired. */
void
as_on_fatal(int sig, siginfo_t *info, void *uctx)
{
	uint64_t tls = as_arch_tls_repair();
	int saved_errno = errno;
	on_fatal(sig, info, uctx);
	errno = saved_errno;
	as_arch_tls_put_back(tls);
}

void
as_on_chain_probe(pid_t tid, void *uctx)
{
	as_chain_rec *inside = as_chain_inside(tid, uctx);
	if (!inside)
		return;
	as_chain_rec *first = outermost(inside);
	first->gave_up = AS_GAVE_UP_HUNG;
	first->gave_up_arg = (int)as_g.handler_timeout_ms;
	if (report_handed(first))
		die_with(first->sig, &first->info);
}

void
as_on_exit(int status)
{
	pid_t tid = as_sys_tid();
	as_chain_rec *inside = as_chain_inside_here(tid);
	if (!inside)
		return;
	as_chain_rec *first = outermost(inside);
	if (!first->reported) {
		first->gave_up = AS_GAVE_UP_EXIT;
		first->gave_up_arg = status;
		report_handed(first);
	}
}
