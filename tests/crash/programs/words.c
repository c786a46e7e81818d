/* The crash in the app's own words: argv[1] picks how it dies.
 *   assert   a failed assert() (glibc keeps its message in __abort_msg)
 *   abort    a plain abort(): no message to report
 *   context  a crash message, annotations and 70 breadcrumbs, then a SIGSEGV
 *   snapshot the same context, then a snapshot instead of a crash
 *   busy     four threads add breadcrumbs and annotations without pause while
 *            the main thread crashes (SIGSEGV)
 *   kill | tgkill | sigqueue
 *            a child named "pm-sender" sends this process SIGSEGV (SIGABRT for
 *            tgkill) that way, and stays alive until this process is gone */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "postmortem.h"

static int
check_positive(int n)
{
	assert(n > 0 && "the count must be positive");
	return n;
}

static int *volatile null_pointer;

static void
say_everything(void)
{
	pm_set_crash_message("first message, replaced");
	pm_set_crash_message("panicked at src/main.rs:2:5:\nindex out of bounds");
	pm_annotate("build", "1234");
	pm_annotate("user.id", "first");
	pm_annotate("user.id", "alice");
	pm_annotate("removed", "gone soon");
	pm_annotate("removed", NULL);
	char big[600];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	pm_annotate("long", big);
	for (int i = 0; i < 70; i++) {
		char crumb[32];
		snprintf(crumb, sizeof crumb, "step %d", i);
		pm_breadcrumb(crumb);
	}
}

static atomic_long busy_calls;

static void *
busy(void *arg)
{
	int n = (int)(intptr_t)arg;
	char key[8], text[64];
	snprintf(key, sizeof key, "t%d", n);
	for (long step = 0;; step++) {
		snprintf(text, sizeof text, "thread %d step %ld", n, step);
		pm_breadcrumb(text);
		pm_annotate(key, text);
		atomic_fetch_add(&busy_calls, 1);
	}
	return NULL;
}

static int
crash_while_busy(void)
{
	pthread_t t;
	for (intptr_t i = 0; i < 4; i++)
		pthread_create(&t, NULL, busy, (void *)i);
	/* Crash only once every thread is well into its loop. */
	while (atomic_load(&busy_calls) < 100000)
		;
	return *null_pointer;
}

static void
send_from_child(const char *how)
{
	int hold[2];
	if (pipe(hold) != 0)
		exit(3);
	pid_t target = getpid();
	if (fork() == 0) {
		close(hold[1]);
		prctl(PR_SET_NAME, "pm-sender");
		if (strcmp(how, "kill") == 0)
			kill(target, SIGSEGV);
		else if (strcmp(how, "tgkill") == 0)
			syscall(SYS_tgkill, target, target, SIGABRT);
		else
			sigqueue(target, SIGSEGV, (union sigval){ .sival_int = 7 });
		char c;
		/* Alive while the report is written, so its name can be read; gone with the target. */
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(hold[0]);
	for (;;)
		pause();
}

int
main(int argc, char **argv)
{
	if (argc < 2 || pm_install(NULL) != 0)
		return 2;
	if (strcmp(argv[1], "assert") == 0)
		return check_positive(argc - 3);
	if (strcmp(argv[1], "context") == 0) {
		say_everything();
		return *null_pointer;
	}
	if (strcmp(argv[1], "kill") == 0 || strcmp(argv[1], "tgkill") == 0 || strcmp(argv[1], "sigqueue") == 0)
		send_from_child(argv[1]);
	if (strcmp(argv[1], "busy") == 0)
		return crash_while_busy();
	if (strcmp(argv[1], "snapshot") == 0) {
		say_everything();
		return pm_snapshot_write("context check") == 0 ? 0 : 1;
	}
	abort();
}
