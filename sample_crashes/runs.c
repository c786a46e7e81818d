/*
 * A program run many times, each run ending another way: release health's
 * test program (tests/delivery/test_sessions_*.c), linked with postmortem
 * (crash_runs) or not at all (crash_plain_runs, for `postmortem run`).
 *   exit0    returns 0 from main
 *   exit3    exit(3)
 *   _exit0   _exit(0), past exit()'s hooks
 *   crash    a read through a NULL pointer (SIGSEGV)
 *   wait     prints "ready" once installed and waits to be killed
 *   kill9    SIGKILL to itself
 *   fork     forks a child that exits 0, then itself exits 0
 *   forkwait forks a child that waits to be killed (it prints "child <pid>"),
 *            then itself exits 0
 *   reinstall installs again, then exits 0
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PLAIN
#include "sample.h"
#endif

int *volatile runs_null;

__attribute__((noinline)) static int
runs_crash_here(void)
{
	return *runs_null;
}

int
main(int argc, char **argv)
{
#ifndef PLAIN
	sample_install();
#endif
	const char *mode = argc > 1 ? argv[1] : "exit0";
	if (strcmp(mode, "exit3") == 0)
		exit(3);
	if (strcmp(mode, "_exit0") == 0)
		_exit(0);
	if (strcmp(mode, "crash") == 0)
		return runs_crash_here();
	if (strcmp(mode, "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (strcmp(mode, "kill9") == 0)
		raise(SIGKILL);
	if (strcmp(mode, "fork") == 0) {
		pid_t child = fork();
		if (child == 0)
			exit(0);
		waitpid(child, NULL, 0);
	}
	if (strcmp(mode, "forkwait") == 0) {
		/* The child says it runs: by then fork's handlers have run in it, and
		 * it has let go of the run's record, which a child not yet scheduled
		 * still shares (a run's session is collected only once it has). */
		int ready[2];
		char c = 0;
		if (pipe(ready) != 0)
			return 2;
		pid_t child = fork();
		if (child == 0) {
			(void)!write(ready[1], &c, 1);
			for (;;)
				pause();
		}
		if (child < 0 || read(ready[0], &c, 1) != 1)
			return 2;
		printf("child %d\n", (int)child);
		fflush(stdout);
	}
#ifndef PLAIN
	if (strcmp(mode, "reinstall") == 0)
		sample_install();
#endif
	return 0;
}
