/*
 * pid_at.c — PID CMD [ARG...]: run CMD as process PID (clone3's set_tid,
 * root only) and wait for it: tests/system/test_core_sandbox.py gives a
 * crashed process's pid to another process while the handler is held.
 */
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	pid_t want = (pid_t)atoi(argv[1]);
	struct clone_args args;
	memset(&args, 0, sizeof args);
	args.exit_signal = SIGCHLD;
	args.set_tid = (uint64_t)(uintptr_t)&want;
	args.set_tid_size = 1;
	long pid = syscall(SYS_clone3, &args, sizeof args);
	if (pid < 0) {
		perror("clone3");
		return 1;
	}
	if (pid == 0) {
		execv(argv[2], argv + 2);
		_exit(127);
	}
	int st;
	waitpid((pid_t)pid, &st, 0);
	return 0;
}
