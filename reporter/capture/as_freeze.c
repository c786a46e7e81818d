/*
 * as_freeze.c — AS-SAFE: stop every other thread and collect its registers.
 *
 *   as_freeze_ask()        reporting thread
 *     list_tasks()            getdents64 on /proc/self/task
 *     populate_slots()        one madvise for the slots the tids hash to
 *     ask()                   claim a slot, send the freeze request naming the thread
 *   as_freeze_wait()       reporting thread, before it walks the next threads
 *     sleep until those have answered, at a stall give up on the blocked, or time out
 *   as_on_freeze()         every other thread, in its freeze handler
 *     copy mcontext into its slot, mark it captured, park
 *
 * A thread that blocks the freeze signal or sits in an uninterruptible
 * sleep never answers; it is still listed, and the report says so.  One
 * that blocks it (asleep with the signal pending and masked) is not
 * waited for.  Past max_threads the list drops threads, never the
 * reporting thread nor one that crashed too.
 */
#include "as_freeze.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "as_control_info.h"
#include "as_memory.h"
#include "as_walker.h"

/* How long the silent threads are waited for, after the last answer, before
 * they are checked for a blocked signal. */
static const uint64_t grace_ns = 2000000;

static size_t
slot_cap(void)
{
	return (size_t)as_g.max_threads * 2;
}

/* A process's threads mostly have neighbouring tids: by tid alone, they take
 * neighbouring slots, and a capture writes a few pages of the table (fresh at
 * the first crash: a page fault each), not a page per thread. */
static size_t
slot_hash(pid_t tid)
{
	return (size_t)(uint32_t)tid % slot_cap();
}

pm_slot *
as_slot_claim(pid_t tid)
{
	size_t cap = slot_cap(), h = slot_hash(tid);
	for (size_t i = 0; i < cap; i++) {
		pm_slot *s = &as_g.slots[(h + i) % cap];
		/* The exchange first: a write is the page's one fault, where a
		 * read first would map the zero page and then fault again. */
		int cur = 0;
		if (atomic_compare_exchange_strong(&s->tid, &cur, tid) || cur == tid)
			return s;
	}
	return NULL;
}

pm_slot *
as_slot_find(pid_t tid)
{
	size_t cap = slot_cap(), h = slot_hash(tid);
	for (size_t i = 0; i < cap; i++) {
		pm_slot *s = &as_g.slots[(h + i) % cap];
		int cur = atomic_load(&s->tid);
		if (cur == tid)
			return s;
		if (cur == 0)
			return NULL;
	}
	return NULL;
}

static bool
parse_tid(const char *name, pid_t *out)
{
	pid_t v = 0;
	if (!*name)
		return false;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || v > 100000000)
			return false;
		v = v * 10 + (*name - '0');
	}
	*out = v;
	return v > 0;
}

/* Threads a report shows whatever its cap: the reporting thread and each
 * one that crashed too (it left its signal in its slot). */
static bool
must_keep(pid_t self, pid_t tid)
{
	if (tid == self)
		return true;
	pm_slot *s = as_slot_find(tid);
	return s && s->signal != 0;
}

/* Past the cap, a thread that must be kept takes the place of a listed one
 * that need not be, from the end of the list (*victim: the lowest place
 * given so far; each place is given at most once). */
static void
add_task(pid_t *tids, size_t cap, size_t *n, size_t *victim, pid_t self, pid_t tid, bool *truncated)
{
	if (*n < cap) {
		tids[(*n)++] = tid;
		return;
	}
	*truncated = true;
	if (!must_keep(self, tid))
		return;
	while (*victim > 0 && must_keep(self, tids[*victim - 1]))
		(*victim)--;
	if (*victim > 0)
		tids[--*victim] = tid;
}

static size_t
list_tasks(const as_capture_ctx *c, bool *truncated)
{
	pid_t self = c->tid, *tids = c->tids;
	size_t cap = c->max_threads;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0, victim = cap;
	long got;
	while ((got = as_sys_getdents64(fd, c->scratch, c->scratch_cap)) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(c->scratch + off);
			pid_t tid;
			if (d->d_reclen == 0)
				break;
			off += d->d_reclen;
			if (parse_tid(d->d_name, &tid))
				add_task(tids, cap, &n, &victim, self, tid, truncated);
		}
	}
	close(fd);
	return n;
}

/*
 * The slots the listed tids hash to, faulted in with one call when they lie
 * close together (neighbouring tids mostly do), where claiming them one by
 * one took a page fault every fourteen slots at the first capture; even one
 * page costs less populated than faulted (as_prefault.h).  Tids spread wide
 * are left to the claims.
 */
enum { POPULATE_SPREAD = 4 };

static void
populate_slots(const pid_t *tids, size_t n)
{
	size_t lo = SIZE_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		size_t h = slot_hash(tids[i]);
		lo = h < lo ? h : lo;
		hi = h > hi ? h : hi;
	}
	if (hi - lo < POPULATE_SPREAD * n)
		as_sys_populate(&as_g.slots[lo], (hi - lo + 1) * sizeof(pm_slot));
}

/*
 * Send the thread the freeze signal (it answers unless it blocks it), its
 * slot marked asked.  The request carries the tid it is sent to in si_uid, which
 * the kernel leaves as given for a signal to our own process: the frozen
 * thread finds its slot without asking the kernel who it is (a system call
 * less for each thread, about 3 us on a paravirtualized VM).  A request
 * that waited past its capture (a thread that blocked it) finds a slot that
 * names another thread, or none, and is dropped.
 */
static void
ask(siginfo_t *info, pid_t self, pid_t tid)
{
	pm_slot *s = as_slot_claim(tid);
	int empty = SLOT_EMPTY;
	/* A thread that crashed too may have filled its slot already: leave it. */
	if (!s || tid == self || !atomic_compare_exchange_strong(&s->state, &empty, SLOT_ASKED))
		return;
	info->si_uid = (uid_t)tid;
	if (as_sys_tgsigqueueinfo(info->si_pid, tid, info->si_signo, info) != 0)
		atomic_store(&s->state, SLOT_EMPTY); /* exited meanwhile */
}

/* How many of tids[0, n) are asked and have not answered. */
static int
still_asked(const pid_t *tids, size_t n)
{
	int left = 0;
	for (size_t i = 0; i < n; i++) {
		pm_slot *s = as_slot_find(tids[i]);
		left += s && atomic_load(&s->state) == SLOT_ASKED;
	}
	return left;
}

/* The value of the "<key>:" line of a status file, past its blanks; NULL if none. */
static const char *
status_field(const char *buf, const char *end, const char *key, size_t key_len)
{
	for (const char *p = buf; p + key_len < end; p++) {
		if ((p == buf || p[-1] == '\n') && memcmp(p, key, key_len) == 0) {
			const char *q = p + key_len;
			while (q < end && (*q == '\t' || *q == ' '))
				q++;
			return q;
		}
	}
	return NULL;
}

static bool
mask_has(const char *buf, const char *end, const char *key, size_t key_len, int sig)
{
	const char *q = status_field(buf, end, key, key_len);
	uint64_t mask;
	return q && as_parse_hex(&q, end, &mask) && sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
}

/* Under qemu-user the masks are in the emulator's host numbering, not the
 * program's, and the freeze signal is one of the host's real-time signals:
 * only a thread blocking all of them (qemu's own helper thread does) is
 * known not to answer. */
static bool
blocks_every_realtime_signal(const char *buf, const char *end)
{
	const uint64_t realtime = ~0ull << 33; /* signals 34 to 64 */
	const char *q = status_field(buf, end, "SigBlk:", 7);
	uint64_t mask;
	return q && as_parse_hex(&q, end, &mask) && (mask & realtime) == realtime;
}

/*
 * Does thread tid block signal sig?  Judged by what the thread did, not by
 * its mask alone: every signal is masked too in a thread already inside the
 * freeze handler (but the signal was delivered: not pending) and in a
 * thread pthread_create has made but not yet run (it is runnable: it will
 * unmask and take the signal when it runs).  A thread blocks the signal
 * when it went to sleep with the signal pending and masked.
 */
static bool
blocks_signal(const as_capture_ctx *c, pid_t tid)
{
	char *buf = c->scratch;
	int sig = c->freeze_signal;
	long n = as_read_proc("/proc/self/task/", tid, "status", buf, c->scratch_cap);
	const char *end = buf + (n > 0 ? n : 0);
	const char *state = status_field(buf, end, "State:", 6);
	if (!state || state >= end || *state == 'R')
		return false;
	if (c->facts->emulated)
		return blocks_every_realtime_signal(buf, end);
	return mask_has(buf, end, "SigPnd:", 7, sig) && mask_has(buf, end, "SigBlk:", 7, sig);
}

/* Stop waiting for threads that block the freeze signal: they cannot answer. */
static void
give_up_on_blocked(const as_capture_ctx *c, size_t n)
{
	const pid_t *tids = c->tids;
	for (size_t i = 0; i < n; i++) {
		pm_slot *s = as_slot_find(tids[i]);
		int asked = SLOT_ASKED;
		if (s && atomic_load(&s->state) == SLOT_ASKED && blocks_signal(c, tids[i]))
			atomic_compare_exchange_strong(&s->state, &asked, SLOT_BLOCKED);
	}
}

as_frozen
as_freeze_ask(const as_capture_ctx *c)
{
	as_frozen f = { 0 };
	f.n = list_tasks(c, &f.truncated);
	populate_slots(c->tids, f.n);
	siginfo_t info;
	as_control_info(&info, c->freeze_signal, PM_CONTROL_FREEZE, getpid(), 0);
	/* No answer wakes us before a wait says which one would. */
	__atomic_store_n(&as_g.answers_wanted, INT_MAX, __ATOMIC_RELEASE);
	__atomic_store_n(&as_g.answers, 0, __ATOMIC_RELEASE);
	for (size_t i = 0; i < f.n; i++)
		ask(&info, c->tid, c->tids[i]);
	uint64_t now = as_sys_now_ns();
	f.deadline = now + (uint64_t)c->freeze_timeout_ms * 1000000u;
	f.next_check = now + grace_ns;
	return f;
}

/*
 * Sleep on the answer count until the threads waited for have answered.
 * Answers come in any order, so the count that wakes us is the least at
 * which they can all be in: the count now plus those still silent; the
 * slots decide at each wakeup.  The count misses a thread that crashed too
 * (it fills its slot itself): a stall rechecks the slots.  While answers
 * keep coming, threads are still being scheduled; only after the grace
 * period without one are the silent ones, all of them, checked for a
 * blocked signal (a /proc read each), and again every recheck period (a
 * thread still runnable now may go to sleep blocking it).
 */
void
as_freeze_wait(const as_capture_ctx *c, as_frozen *f, size_t first, size_t count)
{
	static const uint64_t recheck_ns = 10000000;
	const pid_t *tids = c->tids + first;
	uint64_t now = as_sys_now_ns();
	while (now < f->deadline) {
		int got = __atomic_load_n(&as_g.answers, __ATOMIC_ACQUIRE);
		int left = still_asked(tids, count);
		if (left == 0)
			break;
		if (got != f->seen) {
			f->seen = got;
			f->next_check = now + grace_ns;
		}
		if (now >= f->next_check) {
			give_up_on_blocked(c, f->n);
			f->next_check = as_sys_now_ns() + recheck_ns;
		} else {
			__atomic_store_n(&as_g.answers_wanted, got + left, __ATOMIC_RELEASE);
			uint64_t until = f->next_check < f->deadline ? f->next_check : f->deadline;
			as_sys_futex_wait(&as_g.answers, got, until - now);
		}
		now = as_sys_now_ns();
	}
	/* The answers that come while we walk need not wake anyone. */
	__atomic_store_n(&as_g.answers_wanted, INT_MAX, __ATOMIC_RELEASE);
}

int
as_release_generation(void)
{
	return __atomic_load_n(&as_g.release, __ATOMIC_ACQUIRE);
}

void
as_park(int generation, uint64_t timeout_ns)
{
	uint64_t deadline = timeout_ns ? as_sys_now_ns() + timeout_ns : 0;
	while (as_release_generation() == generation) {
		uint64_t left = 0;
		if (deadline) {
			uint64_t now = as_sys_now_ns();
			if (now >= deadline)
				return;
			left = deadline - now;
		}
		as_sys_futex_wait(&as_g.release, generation, left);
	}
}

void
as_release(void)
{
	__atomic_add_fetch(&as_g.release, 1, __ATOMIC_RELEASE);
	as_sys_futex_wake(&as_g.release);
}

void
as_reset_slots(void)
{
	size_t cap = slot_cap();
	for (size_t i = 0; i < cap; i++) {
		atomic_store(&as_g.slots[i].state, SLOT_EMPTY);
		atomic_store(&as_g.slots[i].tid, 0);
		as_g.slots[i].signal = 0;
		as_g.slots[i].name[0] = '\0';
	}
}

void
as_on_freeze(int sig, siginfo_t *info, void *uctx)
{
	(void)sig;
	int saved = errno;
	/* Read before answering: a release that comes after the answer must
	 * free this thread even if it happens before the park. */
	int generation = as_release_generation();
	pm_slot *s = as_slot_find((pid_t)info->si_uid); /* our own tid (ask) */
	int asked = SLOT_ASKED;
	s = s && atomic_load(&s->state) == SLOT_ASKED ? s : NULL;
	if (s) {
		s->mc = ((ucontext_t *)uctx)->uc_mcontext;
		/* One prctl here spares the reporting thread an open, read and close of its comm file. */
		as_sys_thread_name(s->name);
		/* The slot may have been reset meanwhile (a snapshot gave up on us). */
		if (atomic_compare_exchange_strong(&s->state, &asked, SLOT_CAPTURED)) {
			/* The answer a wait needs wakes the reporting thread (as_freeze_wait). */
			if (__atomic_add_fetch(&as_g.answers, 1, __ATOMIC_ACQ_REL) >=
			    __atomic_load_n(&as_g.answers_wanted, __ATOMIC_ACQUIRE))
				as_sys_futex_wake(&as_g.answers);
			as_walker_volunteer(as_g.crash_signal != 0, uctx, atomic_load(&s->tid), as_g.signals,
			                    as_g.signal_count);
			as_park(generation, 0);
		}
	}
	errno = saved;
}
