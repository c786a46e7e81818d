/*
 * altstack_broadcast.c — the setup requests to the threads that exist at
 * pm_install (see altstack.h): from pm_install itself in a process with
 * few threads, from a short-lived helper thread in one with more.
 * NOT AS-safe.
 *
 * Listing /proc/self/task costs about 1 µs a thread (procfs makes each
 * name it lists) and each request 1–2 µs more: with 256 threads, most of
 * what pm_install took.
 */
#include "altstack.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "as_altstack.h"
#include "as_capture.h"
#include "as_memory.h"
#include "control_send.h"

/* pm_install lists up to INLINE_TIDS + 1 threads from one read (each name
 * takes at most 32 bytes, "." and ".." too).  With INLINE_TIDS or fewer, it
 * asks them itself, as it always did; with more, it starts a helper that
 * asks them all: waking threads from pm_install would cost it their setups
 * too, on a machine with few processors. */
enum { INLINE_TIDS = 30, INLINE_BYTES = (INLINE_TIDS + 3) * 32 };

/* The helper lists the directory again in one read (about 1000 threads
 * fit): procfs resumes a later read by position, and a thread that ended
 * before it would shift an unread one past it.  A listing also ends early
 * where the thread it just listed ends meanwhile; that thread is then
 * gone, and the helper lists again (at most PASSES times).  Its buffer is
 * static: libc carves the thread's static TLS out of the small stack asked
 * for, and only 16 KiB of it are sure to be left. */
enum { HELPER_BYTES = 32 * 1024, HELPER_STACK = 64 * 1024, PASSES = 4 };

typedef struct broadcast {
	siginfo_t info; /* made at the first request: si_uid names each thread */
	bool info_made;
	int sig;
	pid_t installer; /* pm_install's thread, which made its own stack */
} broadcast;

/* Ask thread tid for a stack unless it is self (the asking thread) or
 * known to hold one. */
static void
ask(broadcast *b, pid_t tid, pid_t self)
{
	if (tid == self || tid == b->installer || as_altstack_is_known(tid))
		return;
	if (!b->info_made)
		pmi_control_info(&b->info, b->sig, PM_CONTROL_SETUP);
	b->info_made = true;
	b->info.si_uid = (uid_t)tid; /* the thread it is for (as_control_info) */
	pmi_control_send(b->info.si_pid, tid, &b->info);
}

/* The helper's state lives in .bss, touched only by processes that start
 * one; whether one runs is on the page the loader writes anyway. */
static broadcast helper;
static char helper_buf[HELPER_BYTES];
PM_START_DATA static pthread_t helper_thread;
PM_START_DATA static atomic_bool helper_running; /* claimed by the one who joins it */
PM_START_DATA static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* The helper's work, from the thread self. */
static void
ask_all(pid_t self)
{
	pid_t pid = getpid(), last = 0, tid;
	for (int pass = 0; pass < PASSES; pass++) {
		as_dirents tasks;
		if (!as_dirents_open(&tasks, "/proc/self/task", helper_buf, sizeof helper_buf))
			break;
		while (as_dirents_next_tid(&tasks, &tid)) {
			ask(&helper, tid, self);
			last = tid;
		}
		as_dirents_close(&tasks);
		if (last <= 0 || as_sys_tgkill(pid, last, 0) != -ESRCH)
			break;
	}
}

static void *
helper_main(void *arg)
{
	(void)arg;
	/* A batch thread does not preempt the one it wakes up beside:
	 * pm_install's thread, which has just started it, runs on. */
	struct sched_param batch = { .sched_priority = 0 };
	sched_setscheduler(0, SCHED_BATCH, &batch);
	prctl(PR_SET_NAME, "postmortem"); /* how a crash meanwhile names it */
	ask_all(as_sys_gettid());
	return NULL;
}

void
pmi_altstack_broadcast_wait(void)
{
	if (atomic_load(&helper_running) && atomic_exchange(&helper_running, false))
		pthread_join(helper_thread, NULL);
}

/* A fork waits for the helper: the child, without it, must not find it
 * running. */
static void
wait_at_fork(void)
{
	pthread_atfork(pmi_altstack_broadcast_wait, NULL, NULL);
}

/* The helper blocks the signals meant for the process (the app's own
 * handlers run elsewhere), but not the control signal, so that a crash
 * freezes it like any thread, nor the fatal ones, so that a fault of its
 * own is reported. */
static bool
start_helper(void)
{
	pthread_attr_t attr;
	sigset_t mask;
	sigfillset(&mask);
	sigdelset(&mask, helper.sig);
	for (size_t i = 0; i < as_g.signal_count; i++)
		sigdelset(&mask, as_g.signals[i]);
	if (pthread_attr_init(&attr) != 0)
		return false;
	pthread_once(&fork_once, wait_at_fork);
	/* arm64's libc wants at least 128 KiB, and refuses less. */
	long least = sysconf(_SC_THREAD_STACK_MIN);
	size_t stack = least > HELPER_STACK ? (size_t)least : HELPER_STACK;
	bool ok = pthread_attr_setstacksize(&attr, stack) == 0 && pthread_attr_setsigmask_np(&attr, &mask) == 0 &&
	          pmi_real_pthread_create(&helper_thread, &attr, helper_main, NULL) == 0;
	pthread_attr_destroy(&attr);
	if (ok)
		atomic_store(&helper_running, true);
	return ok;
}

void
pmi_altstack_broadcast(int sig)
{
	char buf[INLINE_BYTES];
	pid_t tids[INLINE_TIDS + 1];
	size_t n = 0;
	as_dirents tasks;
	broadcast b = { .sig = sig, .installer = as_sys_gettid() };
	if (!as_dirents_open(&tasks, "/proc/self/task", buf, sizeof buf))
		return;
	while (n < INLINE_TIDS + 1 && as_dirents_next_tid(&tasks, &tids[n]))
		n++;
	as_dirents_close(&tasks);
	if (n <= INLINE_TIDS) {
		for (size_t i = 0; i < n; i++)
			ask(&b, tids[i], b.installer);
		return;
	}
	/* pm_uninstall has joined the helper of an earlier install. */
	helper = b;
	if (!start_helper())
		ask_all(b.installer); /* no thread to spare: from here */
}
