/*
 * as_chain.h — AS-SAFE: a fault handed first to the handler beside
 * postmortem's (a language runtime's), and what came of it.
 *
 * JVMs, V8, Mono and most JITs take SIGSEGV on purpose (null checks,
 * safepoint polls, guard pages, wasm bounds) and resolve it in their own
 * handler.  Such a fault is not a crash, so the runtime sees it first; a
 * report is written only once the runtime gives up on it (as_handler.c
 * decides, docs/runtimes.md says which cases are told apart and how).
 *
 * Each thread under way in such a call has a slot (by tid) in a small table
 * in a page of its own, mapped at the first call and wiped in a forked
 * child (MADV_WIPEONFORK: the child's threads are not the parent's).  The
 * slot points to the call's record, which lives in the calling handler's
 * frame on the alternate stack: a signal that interrupts code below that
 * frame on the same stack came from inside the call.  A handler that jumps
 * away (siglongjmp, a stack switch) leaves a stale record behind, which
 * the thread's next signal on its own stack forgets.
 */
#ifndef PM_REPORTER_AS_CHAIN_H
#define PM_REPORTER_AS_CHAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

/* How the handler gave up on the fault (the report says it). */
typedef enum as_gave_up {
	AS_GAVE_UP_NOT = 0,
	AS_GAVE_UP_DEFAULT, /* it put the default action back and returned */
	AS_GAVE_UP_SIGNAL,  /* a fatal signal came from inside it (abort(): SIGABRT); arg: the signal */
	AS_GAVE_UP_FAULT,   /* it faulted itself; arg: the signal */
	AS_GAVE_UP_EXIT,    /* it called _exit; arg: the status */
	AS_GAVE_UP_HUNG,    /* it had not returned after arg ms */
	AS_GAVE_UP_LOOP,    /* it kept returning and the same fault kept coming back for arg ms */
	AS_GAVE_UP_MOVED,   /* it moved the context to its own code, which then raised arg (abort(): SIGABRT) */
} as_gave_up;

typedef struct as_chain_rec {
	uint32_t magic, seq;       /* match the slot's while the call is under way */
	int sig;
	siginfo_t info;            /* the fault as the kernel told it */
	mcontext_t mc;             /* its registers, before the handler could change them */
	uint64_t handler;          /* the function called */
	uint64_t frame_sp;         /* the caller's frame: code interrupted below it ran inside the call */
	struct as_chain_rec *outer; /* the call this one was made inside (a runtime's handler for faults in its own crash output) */
	bool reported;             /* the fault's report is written (or being written) */
	as_gave_up gave_up;
	int gave_up_arg;
} as_chain_rec;

/* The innermost call under way on thread tid that the context uc was
 * interrupted inside (its outer ones lead to the fault itself); NULL if none.  A stale record (the handler jumped
 * away) is forgotten here when uc ran off the alternate stack. */
as_chain_rec *as_chain_inside(pid_t tid, const ucontext_t *uc);
/* The same from code running inside the call (not a signal's entry):
 * _exit called by the handler. */
as_chain_rec *as_chain_inside_here(pid_t tid);
/* Whether a call was ever made in this process: if not, none is under way. */
bool as_chain_busy(void);

/* Call prev for the fault (sig, info, uc) as the kernel would have, its
 * flavour and SA_RESETHAND (the mask is the kernel's doing: the handler's
 * registration mirrors it, install.c).  rec is the caller's, outer the call
 * this one is made inside (NULL at the top); rec->reported is the caller's
 * to set (a call made after the report has it true).  Returns whether the handler
 * came back with the context moved (pc or sp): the fault is resolved.
 * *prev_slot is where the handler is recorded, so that SA_RESETHAND can
 * reset it. */
bool as_chain_call(as_chain_rec *rec, as_chain_rec *outer, struct sigaction *prev_slot, int sig, siginfo_t *info,
                   ucontext_t *uc, pid_t tid, int watch_signal, uint32_t timeout_ms);

/* The last fault on a thread whose handler moved the context: resolved it,
 * or went on to handle it in its own code on the thread's stack, called
 * from the faulting instruction as if it had been a call (Mono, V8) —
 * which may still end in abort(). */
typedef struct as_chain_moved {
	int sig, code;
	uint64_t addr, pc, handler, at_ns;
} as_chain_moved;
/* Thread tid's, if it came within timeout_ms. */
bool as_chain_last_moved(pid_t tid, uint32_t timeout_ms, as_chain_moved *out);

/* The handler returned from the fault without moving the context and still
 * handles it: the instruction runs again.  True once the same fault has
 * kept coming back on this thread for timeout_ms. */
bool as_chain_loops(pid_t tid, int sig, const siginfo_t *info, const ucontext_t *uc, uint32_t timeout_ms);

/* The watch timer fired (its control signal, as_control.c): the threads
 * whose call has lasted timeout_ms, up to cap of them, into tids (each is
 * told once); the timer is set again for the calls still under way. */
size_t as_chain_overdue(pid_t *tids, size_t cap, int watch_signal, uint32_t timeout_ms);
/* The tag of the watch timer's signal and of the probe sent to an overdue thread. */
enum { AS_CHAIN_WATCH = 0x706d4357, AS_CHAIN_PROBE = 0x706d4350 };

#endif
