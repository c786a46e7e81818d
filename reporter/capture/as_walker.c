/*
 * as_walker.c — AS-SAFE: a frozen thread lent to the stack walks and the
 * report's landing (see as_walker.h).
 *
 * Every wait is a futex wait with a bound.  The lent thread moves the job
 * only from OFFERED to WORKING and back to READY (or IDLE), and the finished-batch mark
 * only down by one, each by a compare-and-swap; the reporting thread gives
 * up on it by exchanging that mark, so a batch given up on can never be
 * reported done.  The state lives here, not in as_g: only these functions
 * reach it, from the freeze handler, the fatal handler and the walks.
 */
#include "as_walker.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "as_memory.h"

/* The walk needs a few KiB of stack (a CFI row, a frame's registers, the
 * stack windows' iovecs); the alternate stacks altstack.c makes hold
 * 128 KiB, so a thread frozen on its own stack has nearly all of it. */
enum { WALKER_STACK_NEED = 32 * 1024 };

/* How long a thread waits for a job: the walks begin within milliseconds
 * of the freeze (the images are scanned in between); past it the thread
 * parks like the others. */
static const uint64_t job_wait_ns = 1000000000u;

/* state: a futex word.  IDLE, READY (a thread waits for a job), CLAIMED
 * (the reporting thread fills it in), OFFERED, WORKING, then READY again
 * for the next job (IDLE once dismissed), or FAILED (it faulted: that
 * thread never comes back). */
enum { IDLE = 0, READY, CLAIMED, OFFERED, WORKING, FAILED };
/* finished: the lowest batch the lent thread has done (the ones above it
 * are its too); GIVEN_UP once the reporting thread stopped waiting. */
enum { GIVEN_UP = -1 };
enum { WAIT = 0, GO, STOP };

/* How long the lent thread waits for its batches once woken: the images
 * are scanned in between (milliseconds at most); it yields its CPU to any
 * thread that wants it meanwhile, then sleeps, then gives up. */
static const uint64_t batches_spin_ns = 5000000, batches_wait_ns = 1000000000u;

/* The walks, then the landing: a thread waits for no job past these. */
enum { WALKER_JOBS = 2 };

static struct {
	int state;
	int finished;             /* futex word the reporting thread waits on */
	int waiting;              /* it does: wake it */
	int go;                   /* futex word: GO once the batches are set, STOP when there are none */
	int closed;               /* dismissed: a job that ends now is the last */
	pid_t tid;                /* the thread waiting or working */
	uint64_t claims;          /* low half: the next batch from the bottom; high: one past the top's */
	void (*run)(void *);
	void *arg;
	unsigned long cpus[16];   /* the lent thread's own CPUs, given back after the job */
	long cpus_len;            /* bytes of them; 0: its CPUs were not changed */
} walker;

static int
load(int *word)
{
	return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static bool
move(int *word, int from, int to)
{
	return __atomic_compare_exchange_n(word, &from, to, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* sched_getaffinity / sched_setaffinity on thread tid (0: the caller), errno kept. */
static long
affinity(bool set, pid_t tid, long len, unsigned long *cpus)
{
	int saved = errno;
	long r = syscall(set ? SYS_sched_setaffinity : SYS_sched_getaffinity, (long)tid, len, cpus);
	errno = saved;
	return r;
}

/*
 * A thread woken by a futex is often queued on its waker's CPU (the
 * scheduler's wake-affine choice), where it waits for the reporting
 * thread's time slice to end: milliseconds, measured, while the other CPU
 * idled.  So the lent thread is kept off the reporting thread's CPU for
 * the job, and given its own CPUs back after.  False when it may run on
 * that CPU alone: lent, it would only take turns with the reporting thread.
 */
static bool
move_off_my_cpu(pid_t tid)
{
	unsigned cpu;
	const unsigned bits = 8 * sizeof walker.cpus[0];
	walker.cpus_len = 0;
	long len = affinity(false, tid, sizeof walker.cpus, walker.cpus);
	if (len <= 0 || as_sys_getcpu(&cpu) != 0 || cpu / bits >= (size_t)len / sizeof walker.cpus[0])
		return true; /* unknown: left where it is */
	unsigned long others[16];
	bool any = false;
	for (size_t i = 0; i < (size_t)len / sizeof others[0]; i++) {
		others[i] = walker.cpus[i] & ~(i == cpu / bits ? 1ul << cpu % bits : 0);
		any |= others[i] != 0;
	}
	if (any && others[cpu / bits] != walker.cpus[cpu / bits] && affinity(true, tid, len, others) == 0)
		walker.cpus_len = len;
	return any;
}

static void
set_state(int to)
{
	__atomic_store_n(&walker.state, to, __ATOMIC_SEQ_CST);
	as_sys_futex_wake(&walker.state);
}

/* Bytes between our frame and the low end of the alternate stack we run
 * on (the kernel saved its bounds in the context); 0 when we are not on
 * one (then the stack's bounds are unknown). */
static size_t
stack_left(const ucontext_t *uc)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo = (uintptr_t)uc->uc_stack.ss_sp;
	if ((uc->uc_stack.ss_flags & SS_DISABLE) || sp <= lo || sp - lo > uc->uc_stack.ss_size)
		return 0;
	return sp - lo;
}

/* Wait for a job while READY; false when there will be none.  A claim
 * made just as the wait ends is followed by its offer at once: it is
 * waited for, once more for as long. */
static bool
wait_for_job(void)
{
	uint64_t now = as_sys_now_ns(), deadline = now + job_wait_ns;
	bool extended = false;
	for (;;) {
		int st = load(&walker.state);
		if (st == OFFERED)
			return move(&walker.state, OFFERED, WORKING);
		if (st != READY && st != CLAIMED)
			return false;
		if (now >= deadline) {
			if (extended || move(&walker.state, READY, IDLE))
				return false;
			extended = true;
			deadline = now + job_wait_ns;
		}
		as_sys_futex_wait(&walker.state, st, deadline - now);
		now = as_sys_now_ns();
	}
}

/* The freeze handler blocks every signal; the fatal ones are let through
 * while the job runs, so that a fault in it reaches the fatal handler
 * (as_walker_on_fault) instead of the kernel ending the process. */
static void
run_job(const int *signals, size_t count)
{
	sigset_t fatal, old;
	sigemptyset(&fatal);
	for (size_t i = 0; i < count; i++)
		sigaddset(&fatal, signals[i]);
	sigprocmask(SIG_UNBLOCK, &fatal, &old);
	walker.run(walker.arg);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (walker.cpus_len)
		affinity(true, 0, walker.cpus_len, walker.cpus);
	walker.cpus_len = 0;
	/* Ready for the next job, unless dismissed meanwhile: the dismissal
	 * sets closed before it looks for READY, so one of the two sees the
	 * other. */
	if (move(&walker.state, WORKING, READY))
		as_sys_futex_wake(&walker.state);
	if (load(&walker.closed))
		as_walker_dismiss();
}

void
as_walker_volunteer(bool crash, const ucontext_t *uc, pid_t tid, const int *signals, size_t count)
{
	if (!crash || stack_left(uc) < WALKER_STACK_NEED || !move(&walker.state, IDLE, READY))
		return;
	__atomic_store_n(&walker.closed, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&walker.tid, tid, __ATOMIC_SEQ_CST);
	for (int jobs = 0; jobs < WALKER_JOBS && wait_for_job(); jobs++)
		run_job(signals, count);
	move(&walker.state, READY, IDLE);
}

bool
as_walker_claim(void)
{
	return move(&walker.state, READY, CLAIMED);
}

void
as_walker_dismiss(void)
{
	__atomic_store_n(&walker.closed, 1, __ATOMIC_SEQ_CST);
	if (move(&walker.state, READY, IDLE))
		as_sys_futex_wake(&walker.state);
}

bool
as_walker_lend(void (*run)(void *), void *arg)
{
	if (!as_walker_claim())
		return false;
	walker.run = run;
	walker.arg = arg;
	set_state(OFFERED);
	return true;
}

bool
as_walker_take_back(void)
{
	/* A thread that sees IDLE where it waited for the job parks. */
	return move(&walker.state, OFFERED, IDLE);
}

void
as_walker_wait_job(uint64_t timeout_ns)
{
	uint64_t now = as_sys_now_ns(), deadline = now + timeout_ns;
	int st;
	while ((st = load(&walker.state)) == OFFERED || st == WORKING) {
		if (now >= deadline)
			return;
		as_sys_futex_wait(&walker.state, st, deadline - now);
		now = as_sys_now_ns();
	}
}

bool
as_walker_offer(void (*run)(void *), void *arg)
{
	walker.run = run;
	walker.arg = arg;
	walker.waiting = 0;
	__atomic_store_n(&walker.go, WAIT, __ATOMIC_SEQ_CST);
	bool apart = move_off_my_cpu(__atomic_load_n(&walker.tid, __ATOMIC_SEQ_CST));
	set_state(apart ? OFFERED : IDLE);
	return apart;
}

static void
set_go(int to)
{
	__atomic_store_n(&walker.go, to, __ATOMIC_SEQ_CST);
	as_sys_futex_wake(&walker.go);
}

void
as_walker_start(size_t first, size_t batches)
{
	__atomic_store_n(&walker.finished, (int)batches, __ATOMIC_SEQ_CST);
	__atomic_store_n(&walker.claims, (uint64_t)batches << 32 | first, __ATOMIC_SEQ_CST);
	set_go(GO);
}

void
as_walker_cancel(void)
{
	set_go(STOP);
}

bool
as_walker_wait_batches(void)
{
	uint64_t start = as_sys_now_ns(), now = start;
	int go;
	while ((go = load(&walker.go)) == WAIT && now - start < batches_wait_ns) {
		if (now - start < batches_spin_ns) {
			int saved = errno;
			syscall(SYS_sched_yield);
			errno = saved;
		} else {
			as_sys_futex_wait(&walker.go, WAIT, batches_wait_ns - (now - start));
		}
		now = as_sys_now_ns();
	}
	return go == GO;
}

static bool
take(size_t *batch, bool high)
{
	uint64_t v = __atomic_load_n(&walker.claims, __ATOMIC_SEQ_CST);
	for (;;) { /* each failed exchange means the other side took one: bounded by the batches */
		uint64_t lo = v & 0xffffffffu, hi = v >> 32;
		if (lo >= hi)
			return false;
		uint64_t next = high ? (hi - 1) << 32 | lo : v + 1;
		if (__atomic_compare_exchange_n(&walker.claims, &v, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			*batch = (size_t)(high ? hi - 1 : lo);
			return true;
		}
	}
}

bool
as_walker_take_low(size_t *batch)
{
	return take(batch, false);
}

bool
as_walker_take_high(size_t *batch)
{
	return take(batch, true);
}

bool
as_walker_done(size_t b)
{
	if (!move(&walker.finished, (int)b + 1, (int)b))
		return false;
	if (load(&walker.waiting))
		as_sys_futex_wake(&walker.finished);
	return true;
}

void
as_walker_finish(uint64_t timeout_ns, size_t *redo, size_t *from, bool *clean)
{
	/* Nothing is left to take: both halves met here. */
	size_t met = (size_t)(__atomic_load_n(&walker.claims, __ATOMIC_SEQ_CST) >> 32);
	uint64_t now = as_sys_now_ns(), deadline = now + timeout_ns;
	__atomic_store_n(&walker.waiting, 1, __ATOMIC_SEQ_CST);
	*redo = met;
	for (;;) {
		int f = load(&walker.finished);
		if (f == (int)met) {
			*from = met;
			*clean = true;
			return;
		}
		if (load(&walker.state) == FAILED || now >= deadline) {
			while (!move(&walker.finished, f, GIVEN_UP)) /* fails only when a batch was done: bounded */
				f = load(&walker.finished);
			*from = (size_t)f;
			*clean = f == (int)met;
			return;
		}
		as_sys_futex_wait(&walker.finished, f, deadline - now);
		now = as_sys_now_ns();
	}
}

bool
as_walker_on_fault(pid_t tid)
{
	if (__atomic_load_n(&walker.tid, __ATOMIC_SEQ_CST) != tid || !move(&walker.state, WORKING, FAILED))
		return false;
	as_sys_futex_wake(&walker.finished);
	as_sys_futex_wake(&walker.state);
	return true;
}
