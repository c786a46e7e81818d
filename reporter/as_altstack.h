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

/* A stack we made: its mapping, a guard page and the stack above it. */
typedef struct pm_as_stack {
	void *map;
	size_t size;
} pm_as_stack;

/* Bytes at the top of each stack's mapping that hold its pm_as_stack. */
enum { AS_STACK_RECORD_ROOM = 64 };

/* How large each stack is and the page size, decided once at install
 * (sysconf and getauxval stay off the signal path). */
void as_altstack_set_geometry(size_t stack_size, size_t page_size);
/* Give the calling thread an alternate stack, unless it has one (then
 * *made is NULL); *now is the thread's stack after the call.  The record
 * lives at the top of the stack's mapping.  False when the memory or
 * sigaltstack was refused. */
bool as_altstack_make(pm_as_stack **made, stack_t *now);
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
