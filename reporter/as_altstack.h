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
/* Give the calling thread an alternate stack, unless it has one (then
 * *made is NULL); *now is the thread's stack after the call.  *made is the
 * stack's mapping: a guard page, then the stack, as_altstack_map_size()
 * bytes in all: reuse when not NULL (one made here for a thread that has
 * ended, left to the caller when not used), else a new one.  Any thread but pm_install's caller (installer) is
 * recorded as holding a stack (as_altstack_known.c) and has the top
 * frame_bytes of a stack made for it written (faulted in) now, where the
 * freeze would otherwise fault them in.  pm_install's caller pays neither:
 * no page is touched for it, so that an app with one thread starts as fast
 * as before.  False when the memory or sigaltstack was refused. */
bool as_altstack_make(void **made, stack_t *now, bool installer, void *reuse);
size_t as_altstack_map_size(void);
/* The setup signal's work on each thread: a stack, recorded in the signal
 * frame so that sigreturn keeps it.  Nobody waits for it (altstack.h).  A
 * stack made here is never freed: no thread-exit hook can be registered
 * from a handler. */
void as_altstack_on_setup(void *uctx);

/* Threads known to hold an alternate stack (as_altstack_known.c). */
void as_altstack_known_add(pid_t tid);
void as_altstack_known_remove(pid_t tid);
bool as_altstack_is_known(pid_t tid);

#endif
