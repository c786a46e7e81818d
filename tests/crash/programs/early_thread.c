/* A thread that exists before pm_install overflows its stack: the install
 * must have given it an alternate signal stack too.
 *
 * With the argument "reinstall", pm_install runs twice (pm_uninstall in
 * between) before the overflow, and the annotation "interrupted" tells how
 * often the thread's poll() returned EINTR after each install: the first
 * install signals it, the second knows it holds a stack already.
 *
 * With "uninstall_at_once", IDLE_THREADS more threads wait beside it, and
 * pm_uninstall follows pm_install at once, before they have taken the
 * setup requests: they hold every signal blocked for HOLD_MS, which makes
 * "not taken yet" certain.  The process must live on (a request still
 * pending when the control signal's handler goes away would end it), and
 * the install after it still gives the worker its stack.
 *
 * With "many", MANY_THREADS threads exist at install, more than pm_install
 * asks itself (a helper thread asks the rest after it has returned), and
 * the worker, started last, is listed last: it waits until it sees its own
 * alternate stack, as a user could, and then overflows.  With
 * "many_uninstall_fork", pm_uninstall, pm_install and fork follow the first
 * pm_install at once, while the helper may still be asking: the process
 * lives on, and the child (which calls pm_install and pm_uninstall itself)
 * exits 0, its status in the annotation "child"; "many_uninstall_fork_settled"
 * churns only once every thread holds its stack (for qemu-user, below).
 * With "many_no_helper",
 * the helper thread cannot start (refuse_threads.c): pm_install asks every
 * thread itself before it returns, so the worker overflows at once after
 * it, and the annotation "refused" counts the thread starts refused. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "postmortem.h"
#include "refuse_threads.h"

static atomic_int go, interrupted, probe, probed;
volatile int zero;

__attribute__((noinline, noclone)) static int
recurse_early(volatile int depth)
{
	volatile char pad[512];
	pad[0] = (char)depth;
	int r = (zero == 0 ? recurse_early(depth + 1) : 0) + pad[0];
	__asm__ volatile("" ::: "memory");
	return r;
}

static bool
holds_altstack(void)
{
	stack_t ss;
	return sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE);
}

/* arg: wait for the thread's own alternate stack after go. */
static void *
early(void *arg)
{
	while (!atomic_load(&go) || (arg && !holds_altstack())) {
		if (poll(NULL, 0, 1) < 0 && errno == EINTR)
			atomic_fetch_add(&interrupted, 1);
		atomic_store(&probed, atomic_load(&probe));
	}
	recurse_early(0);
	return NULL;
}

enum { MANY_THREADS = 100 };

static atomic_int settled;

/* With a counter, counts itself in it once it holds an alternate stack. */
static void *
wait_for_go(void *counter)
{
	bool counted = false;
	while (!atomic_load(&go)) {
		if (counter && !counted && holds_altstack()) {
			counted = true;
			atomic_fetch_add((atomic_int *)counter, 1);
		}
		poll(NULL, 0, 1);
	}
	return NULL;
}

/* Until every thread but the worker holds its stack (false after 20 s). */
static bool
wait_settled(void)
{
	for (int ms = 0; atomic_load(&settled) < MANY_THREADS - 1; ms++)
		if (ms == 20000 || usleep(1000) != 0)
			return false;
	return true;
}

/* pm_uninstall, pm_install, pm_install again (no uninstall between) and
 * fork right after pm_install; the child's exit status. */
static int
churn_while_helper_asks(void)
{
	pm_uninstall();
	if (pm_install(NULL) != 0 || pm_install(NULL) != 0)
		return -1;
	pid_t child = fork();
	if (child == 0)
		_exit(pm_install(NULL) == 0 ? (pm_uninstall(), 0) : 3);
	int status = -1;
	if (child < 0 || waitpid(child, &status, 0) != child)
		return -1;
	return status;
}

enum { IDLE_THREADS = 32, HOLD_MS = 50 };

static atomic_int holding;

static void *
idle(void *arg)
{
	(void)arg;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_fetch_add(&holding, 1);
	usleep(HOLD_MS * 1000);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (!atomic_load(&go))
		poll(NULL, 0, 1);
	return NULL;
}

/* EINTRs the thread saw up to a full loop after now. */
static int
interruptions(int round)
{
	atomic_store(&probe, round);
	while (atomic_load(&probed) != round)
		usleep(1000);
	return atomic_load(&interrupted);
}

int
main(int argc, char **argv)
{
	pthread_t t, idlers[IDLE_THREADS];
	const char *mode = argc > 1 ? argv[1] : "";
	bool at_once = strcmp(mode, "uninstall_at_once") == 0;
	bool many = strncmp(mode, "many", 4) == 0, no_helper = strcmp(mode, "many_no_helper") == 0;
	bool churn = strncmp(mode, "many_uninstall_fork", 19) == 0;
	bool settle = strcmp(mode, "many_uninstall_fork_settled") == 0;
	for (int i = 0; many && i < MANY_THREADS - 1; i++)
		if (pthread_create(&t, NULL, wait_for_go, settle ? &settled : NULL) != 0)
			return 2;
	pthread_create(&t, NULL, early, many && !no_helper ? &go : NULL);
	for (int i = 0; at_once && i < IDLE_THREADS; i++)
		pthread_create(&idlers[i], NULL, idle, NULL);
	while (at_once && atomic_load(&holding) < IDLE_THREADS)
		usleep(1000);
	refuse_threads(no_helper);
	int installed = pm_install(NULL);
	refuse_threads(false);
	if (installed != 0)
		return 2;
	if (no_helper) {
		char text[16];
		snprintf(text, sizeof text, "%d", threads_refused());
		pm_annotate("refused", text);
	}
	if (at_once) {
		pm_uninstall();
		usleep(2 * HOLD_MS * 1000); /* the idle threads take what is pending */
		if (pm_install(NULL) != 0)
			return 2;
	}
	if (settle && !wait_settled())
		return 2;
	if (churn) {
		char text[16];
		snprintf(text, sizeof text, "%d", churn_while_helper_asks());
		pm_annotate("child", text);
	}
	if (strcmp(mode, "reinstall") == 0) {
		int first = interruptions(1);
		pm_uninstall();
		if (pm_install(NULL) != 0)
			return 2;
		int second = interruptions(2);
		char text[32];
		snprintf(text, sizeof text, "%d %d", first, second);
		pm_annotate("interrupted", text);
	}
	atomic_store(&go, 1);
	pthread_join(t, NULL);
	return 0;
}
