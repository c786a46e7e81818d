/*
 * as_altstack.h — AS-SAFE: making a thread's alternate signal stack, the
 * part of altstack.h that also runs inside the setup-signal handler.
 */
#ifndef PM_REPORTER_AS_ALTSTACK_H
#define PM_REPORTER_AS_ALTSTACK_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* How large each stack is, the page size and how much of a stack's top
 * a frozen thread uses (the kernel's signal frame and the freeze handler),
 * decided once at install (sysconf and getauxval stay off the signal path). */
void as_altstack_set_geometry(size_t stack_size, size_t page_size, size_t frame_bytes);
/* Whom a stack is made for. */
typedef enum {
	AS_ALTSTACK_INSTALLER, /* pm_install's caller: nothing is recorded or written, so that
	                          an app with one thread starts as fast as without it */
	AS_ALTSTACK_EXISTING,  /* a thread from before pm_install, in the setup handler: recorded */
	AS_ALTSTACK_STARTED,   /* a thread started through our pthread_create: recorded, and
	                          the top frame_bytes of its stack written (faulted in) */
} as_altstack_for;
/* Give the calling thread an alternate stack, unless it has one (then
 * *made is NULL); *now is the thread's stack after the call.  *made is the
 * stack's mapping: a guard page, then the stack, as_altstack_map_size()
 * bytes in all: reuse when not NULL (one made here for a thread that has
 * ended, left to the caller when not used), else a new one.  A thread is
 * recorded as holding a stack in as_altstack_known.c.  A started thread's
 * top page is written at its start, where the freeze would fault it in
 * (as_altstack.c); a thread from before pm_install is not, since install
 * wakes all of them at once and each fault would add to what install's
 * requests cost.  False when the memory or sigaltstack was refused. */
bool as_altstack_make(void **made, stack_t *now, as_altstack_for who, void *reuse);
size_t as_altstack_map_size(void);
/* The setup signal's work on each thread (self: its tid, which the request
 * names): a stack, recorded in the signal frame so that sigreturn keeps it.
 * Nobody waits for it (altstack.h).  A stack made here is never freed: no
 * thread-exit hook can be registered from a handler. */
void as_altstack_on_setup(pid_t self, void *uctx);

/* Threads known to hold an alternate stack (as_altstack_known.c). */
void as_altstack_known_add(pid_t tid);
void as_altstack_known_remove(pid_t tid);
bool as_altstack_is_known(pid_t tid);

#endif
