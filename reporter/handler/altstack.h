/*
 * altstack.h — alternate signal stacks on every thread.  NOT AS-safe
 * (mmap at thread start), except where noted.
 *
 * A stack overflow leaves no stack for the handler; only an alternate
 * signal stack lets it run.  sigaltstack is per thread, so:
 *   - the thread calling pm_install gets one directly;
 *   - threads that already exist get one through a setup signal whose
 *     handler runs on each of them (pmi_altstack_broadcast; the handler's
 *     part is the crash path's as_altstack.c), unless they are known to
 *     hold one already (from an earlier install, or started through our
 *     pthread_create: as_altstack_known.c).  pm_install does not wait for
 *     their answers: a signal pending on a thread is delivered before the
 *     thread runs its own code again (the kernel delivers on every return
 *     to user space, and interrupts a running thread to do so), so no
 *     thread can overflow its stack between the request and its stack;
 *     pm_uninstall discards the requests not taken yet (by ignoring the
 *     signal for a moment).  In a process of more than 30 threads, a
 *     helper thread lists and asks them after pm_install has returned
 *     (altstack_broadcast.c): until it reaches a thread, a stack overflow
 *     there goes unreported (docs/architecture.md, "Many threads at
 *     install");
 *   - threads created later get one before their start routine runs,
 *     through our pthread_create (interposed: it wraps the start routine).
 * A pthread key hands the stack of a thread started through
 * pthread_create to the next thread that starts when it exits (a small
 * pool; past it, unmapped); pm_uninstall unmaps its own thread's stack; a
 * stack made in the setup handler stays (a key cannot be set there:
 * pthread_setspecific may allocate).
 */
#ifndef PM_REPORTER_ALTSTACK_H
#define PM_REPORTER_ALTSTACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Size of each alternate stack: AT_MINSIGSTKSZ plus room for the handler. */
size_t pmi_altstack_size(void);
/* Give the calling thread an alternate stack with a guard page, unless it
 * has one (installer: pm_install's caller; see as_altstack_make). */
bool pmi_altstack_ensure(bool installer);
/* Prepare the thread-exit cleanup; call once at install. */
bool pmi_altstack_init(void);
/* Ask every other thread not known to hold a stack for one (through
 * `sig`, whose handler runs as_altstack_on_setup), without waiting: each
 * thread takes the request before it runs any more of its own code.  With
 * more than 30 threads, a helper thread asks them, after the call. */
void pmi_altstack_broadcast(int sig);
/* Wait until a helper of pmi_altstack_broadcast has sent its last
 * request: before the control signal's handler goes (pm_uninstall), and
 * before a fork (the child has no helper). */
void pmi_altstack_broadcast_wait(void);
/* libc's pthread_create, for threads of our own, which need no stack. */
int pmi_real_pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
/* Drop the calling thread's stack if we made it. */
void pmi_altstack_release(void);

#endif
