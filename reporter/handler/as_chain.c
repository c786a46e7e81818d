/*
 * as_chain.c — AS-SAFE: the calls of a runtime's handler for a fault it
 * may resolve, the table that says which thread is inside one, and the
 * timer that watches for one that never ends (see as_chain.h).
 */
#include "as_chain.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "as_memory.h"
#include "as_unwind.h"

enum {
	REC_MAGIC = 0x706d6368,
	PAGE_BYTES = 65536,   /* about 600 threads in calls, or that ever made one, at once */
	RECLAIM_NS = 1000000000, /* a full table looks for ended threads at most this often */
	SLACK_NS = 1000000, /* a timer set for a call fires no earlier than this after its due time */
};

typedef struct chain_slot {
	_Atomic pid_t tid;        /* claimed by CAS from 0 */
	_Atomic uint32_t seq;     /* the innermost call's */
	as_chain_rec *_Atomic rec; /* the innermost call under way, NULL if none */
	_Atomic uint64_t since;   /* when the outermost one began (monotonic ns) */
	_Atomic bool probed;      /* told overdue once */
	/* the fault the handler last returned from without moving the context */
	int loop_sig;
	uint64_t loop_pc, loop_addr, loop_since;
	as_chain_moved moved;     /* the last one it moved the context of (sig 0: none) */
} chain_slot;

typedef struct chain_page {
	_Atomic int timer;        /* kernel timer id + 1; 0: none made */
	_Atomic uint64_t due;     /* when the timer fires (0: not set) */
	_Atomic uint64_t reclaimed; /* when a full table last looked for ended threads */
	chain_slot slots[(PAGE_BYTES - 64) / sizeof(chain_slot)];
} chain_page;

_Static_assert(sizeof(chain_page) <= PAGE_BYTES, "chain_page outgrew its mapping");
enum { SLOTS = sizeof((chain_page *)0)->slots / sizeof(chain_slot) };

static chain_page *_Atomic page;

/* The table, mapped at the first call (and wiped in a forked child). */
static chain_page *
the_page(void)
{
	chain_page *p = atomic_load(&page);
	if (p)
		return p;
	chain_page *made = as_sys_map(PAGE_BYTES, 0);
	if (!made)
		return NULL;
	as_sys_wipe_on_fork(made, PAGE_BYTES);
	if (!atomic_compare_exchange_strong(&page, &p, made)) {
		as_sys_unmap(made, PAGE_BYTES);
		return p;
	}
	return made;
}

static chain_slot *
find(chain_page *p, pid_t tid)
{
	if (!p)
		return NULL;
	for (size_t k = 0, i = (size_t)tid % SLOTS; k < SLOTS; k++, i = (i + 1) % SLOTS)
		if (atomic_load(&p->slots[i].tid) == tid)
			return &p->slots[i];
	return NULL;
}

/* The slots of threads that have ended, made free; false if none (or
 * looked for less than RECLAIM_NS ago: a table full of live threads must
 * not cost every call hundreds of system calls). */
static bool
reclaim(chain_page *p)
{
	uint64_t now = as_sys_now_ns(), last = atomic_load(&p->reclaimed);
	if (now - last < RECLAIM_NS || !atomic_compare_exchange_strong(&p->reclaimed, &last, now))
		return false;
	pid_t pid = getpid();
	bool freed = false;
	for (size_t i = 0; i < SLOTS; i++) {
		pid_t t = atomic_load(&p->slots[i].tid);
		if (t && as_sys_tgkill(pid, t, 0) == -ESRCH && atomic_compare_exchange_strong(&p->slots[i].tid, &t, 0))
			freed = true;
	}
	return freed;
}

static chain_slot *
claim(chain_page *p, pid_t tid)
{
	chain_slot *s = find(p, tid);
	for (int round = 0; !s && p && round < 2; round++) {
		for (size_t k = 0, i = (size_t)tid % SLOTS; k < SLOTS && !s; k++, i = (i + 1) % SLOTS) {
			pid_t free_tid = 0;
			if (atomic_compare_exchange_strong(&p->slots[i].tid, &free_tid, tid)) {
				s = &p->slots[i];
				atomic_store(&s->rec, NULL);
				s->loop_sig = 0;
				s->moved.sig = 0;
			}
		}
		if (!s && !reclaim(p))
			break;
	}
	return s;
}

bool
as_chain_busy(void)
{
	return atomic_load(&page) != NULL;
}

/* rec is s's live innermost call if the code at sp, on the alternate stack
 * [lo, hi), was interrupted inside it. */
static as_chain_rec *
live(chain_slot *s, uint64_t sp, uint64_t lo, uint64_t hi)
{
	as_chain_rec *rec = atomic_load(&s->rec);
	uint64_t at = (uint64_t)(uintptr_t)rec;
	if (!rec || at < lo || at >= hi || sp >= rec->frame_sp)
		return NULL;
	return rec->magic == REC_MAGIC && rec->seq == atomic_load(&s->seq) ? rec : NULL;
}

as_chain_rec *
as_chain_inside(pid_t tid, const ucontext_t *uc)
{
	chain_slot *s = find(atomic_load(&page), tid);
	if (!s)
		return NULL;
	/* The kernel saves the alternate stack's settings, not whether the
	 * interrupted code ran on it (ss_flags): the stack pointer tells. */
	uint64_t lo = (uint64_t)(uintptr_t)uc->uc_stack.ss_sp, sp = as_arch_sp(&uc->uc_mcontext);
	if ((uc->uc_stack.ss_flags & SS_DISABLE) || sp <= lo || sp - lo > uc->uc_stack.ss_size) {
		/* The thread ran on its own stack: any record is stale. */
		atomic_store(&s->rec, NULL);
		return NULL;
	}
	return live(s, sp, lo, lo + uc->uc_stack.ss_size);
}

as_chain_rec *
as_chain_inside_here(pid_t tid)
{
	chain_slot *s = find(atomic_load(&page), tid);
	stack_t ss;
	if (!s || as_sys_sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK))
		return NULL;
	uint64_t lo = (uint64_t)(uintptr_t)ss.ss_sp;
	return live(s, (uint64_t)(uintptr_t)__builtin_frame_address(0), lo, lo + ss.ss_size);
}

/* Make sure the timer fires by the time a call begun at since has lasted
 * timeout_ms (plus its slack). */
static void
watch(chain_page *p, int watch_signal, uint64_t since, uint64_t now, uint32_t timeout_ms)
{
	uint64_t want = since + (uint64_t)timeout_ms * 1000000u + SLACK_NS;
	if (want <= now)
		want = now + SLACK_NS;
	uint64_t due = atomic_load(&p->due);
	if ((due > now && due <= want) || !atomic_compare_exchange_strong(&p->due, &due, want))
		return;
	int id = atomic_load(&p->timer) - 1;
	if (id < 0 || as_sys_timer_once(id, want - now) != 0) {
		int made;
		if (as_sys_timer_create(watch_signal, AS_CHAIN_WATCH, &made) != 0 ||
		    as_sys_timer_once(made, want - now) != 0) {
			atomic_store(&p->due, 0);
			return;
		}
		int old = id + 1;
		/* Two threads made one each: one is enough, the other stays armed once (harmless). */
		atomic_compare_exchange_strong(&p->timer, &old, made + 1);
	}
}

static uint64_t
context_pc(const ucontext_t *uc)
{
	return as_arch_pc(&uc->uc_mcontext);
}

bool
as_chain_call(as_chain_rec *rec, as_chain_rec *outer, struct sigaction *prev_slot, int sig, siginfo_t *info,
              ucontext_t *uc, pid_t tid, int watch_signal, uint32_t timeout_ms)
{
	struct sigaction prev = *prev_slot;
	chain_page *p = the_page();
	chain_slot *s = claim(p, tid);
	uint64_t pc = context_pc(uc), sp = as_arch_sp(&uc->uc_mcontext), now = 0;

	rec->magic = REC_MAGIC;
	rec->sig = sig;
	rec->info = *info;
	rec->mc = uc->uc_mcontext;
	rec->handler = (prev.sa_flags & SA_SIGINFO) ? (uint64_t)(uintptr_t)prev.sa_sigaction
	                                            : (uint64_t)(uintptr_t)prev.sa_handler;
	rec->frame_sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	rec->outer = outer;
	rec->gave_up = AS_GAVE_UP_NOT;
	if (s) {
		rec->seq = atomic_load(&s->seq) + 1;
		atomic_store(&s->seq, rec->seq);
		if (!outer) {
			now = as_sys_now_ns();
			atomic_store(&s->since, now);
			atomic_store(&s->probed, false);
			watch(p, watch_signal, now, now, timeout_ms);
		}
		atomic_store(&s->rec, rec);
	}
	if (prev.sa_flags & SA_RESETHAND)
		prev_slot->sa_handler = SIG_DFL;

	if (prev.sa_flags & SA_SIGINFO)
		prev.sa_sigaction(sig, info, uc);
	else
		prev.sa_handler(sig);

	bool moved = context_pc(uc) != pc || as_arch_sp(&uc->uc_mcontext) != sp;
	if (s) {
		atomic_store(&s->rec, outer);
		if (outer)
			atomic_store(&s->seq, outer->seq);
		if (moved && !outer) {
			s->loop_sig = 0;
			s->moved = (as_chain_moved){ .sig = sig, .code = info->si_code,
			                             .addr = (uint64_t)(uintptr_t)info->si_addr, .pc = pc,
			                             .handler = rec->handler, .at_ns = now };
		}
	}
	rec->magic = 0;
	return moved;
}

bool
as_chain_last_moved(pid_t tid, uint32_t timeout_ms, as_chain_moved *out)
{
	chain_slot *s = find(atomic_load(&page), tid);
	if (!s || !s->moved.sig || as_sys_now_ns() - s->moved.at_ns >= (uint64_t)timeout_ms * 1000000u)
		return false;
	*out = s->moved;
	return true;
}

bool
as_chain_loops(pid_t tid, int sig, const siginfo_t *info, const ucontext_t *uc, uint32_t timeout_ms)
{
	chain_slot *s = find(atomic_load(&page), tid);
	if (!s)
		return false;
	uint64_t pc = context_pc(uc), addr = (uint64_t)(uintptr_t)info->si_addr, now = as_sys_now_ns();
	if (s->loop_sig != sig || s->loop_pc != pc || s->loop_addr != addr) {
		s->loop_sig = sig;
		s->loop_pc = pc;
		s->loop_addr = addr;
		s->loop_since = now;
		return false;
	}
	return now - s->loop_since >= (uint64_t)timeout_ms * 1000000u;
}

size_t
as_chain_overdue(pid_t *tids, size_t cap, int watch_signal, uint32_t timeout_ms)
{
	chain_page *p = atomic_load(&page);
	if (!p)
		return 0;
	atomic_store(&p->due, 0);
	uint64_t now = as_sys_now_ns(), limit = (uint64_t)timeout_ms * 1000000u, next = 0;
	size_t n = 0;
	for (size_t i = 0; i < SLOTS; i++) {
		chain_slot *s = &p->slots[i];
		pid_t tid = atomic_load(&s->tid);
		if (!tid || !atomic_load(&s->rec) || atomic_load(&s->probed))
			continue;
		uint64_t since = atomic_load(&s->since);
		if (now - since >= limit) {
			if (n < cap) {
				atomic_store(&s->probed, true);
				tids[n++] = tid;
			}
		} else if (!next || since < next) {
			next = since;
		}
	}
	/* Watch the calls still under way: the oldest is due first. */
	if (next)
		watch(p, watch_signal, next, now, timeout_ms);
	return n;
}
