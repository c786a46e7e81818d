/*
 * altstack.h — alternate signal stacks on every thread.  NOT AS-safe
 * (mmap at thread start), except where noted.
 *
 * A stack overflow leaves no stack for the handler; only an alternate
 * signal stack lets it run.  sigaltstack is per thread, so:
 *   - the thread calling pm_install gets one directly;
 *   - threads that already exist get one through a setup signal whose
 *     handler runs on each of them (pm_altstack_broadcast), unless they are
 *     known to hold one already (from an earlier install, or started
 *     through our pthread_create);
 *   - threads created later get one before their start routine runs,
 *     through our pthread_create (interposed: it wraps the start routine).
 * A pthread key frees each thread's stack when the thread exits.
 */
#ifndef PM_REPORTER_ALTSTACK_H
#define PM_REPORTER_ALTSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Size of each alternate stack: AT_MINSIGSTKSZ plus room for the handler. */
size_t pm_altstack_size(void);
/* Give the calling thread an alternate stack with a guard page, unless it has one. */
bool pm_altstack_ensure(void);
/* Prepare the thread-exit cleanup; call once at install. */
bool pm_altstack_init(void);
/* Ask every other thread to run pm_altstack_ensure (through `sig`), waiting up to timeout_ms. */
void pm_altstack_broadcast(int sig, unsigned timeout_ms);
/* Called from the setup-signal handler on each thread, with its ucontext. */
void pm_altstack_on_setup(void *uctx);
/* Drop the calling thread's stack if we made it. */
void pm_altstack_release(void);

/* Threads known to hold an alternate stack (altstack_known.c; AS-safe). */
void pm_altstack_known_add(pid_t tid);
void pm_altstack_known_remove(pid_t tid);
bool pm_altstack_is_known(pid_t tid);

#endif
