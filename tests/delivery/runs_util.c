#include "runs_util.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

const char *const runs_six_modes[RUNS_SIX] = { "exit0", "exit0", "exit0", "exit3", "crash", "wait" };

/* environ without POSTMORTEM_*, then env and POSTMORTEM_DIR=dir. */
static char **
child_env(const char *dir, const char *const *env)
{
	size_t n = 0, m = 0, k = 0;
	while (environ[n])
		n++;
	while (env && env[m])
		m++;
	char **out = calloc(n + m + 2, sizeof *out);
	cr_assert(out);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "POSTMORTEM_", 11) != 0)
			out[k++] = environ[i];
	for (size_t i = 0; i < m; i++)
		out[k++] = (char *)env[i];
	cr_assert(asprintf(&out[k], "POSTMORTEM_DIR=%s", dir) > 0);
	return out;
}

pid_t
runs_run(const char *program, const char *dir, const char *mode, const char *const *env, int *status)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", pm_test_build("sample_crashes/%s", program));
	int out[2];
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	char **envp = child_env(dir, env);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(out[1], 1);
		execle(path, path, mode, (char *)NULL, envp);
		_exit(127);
	}
	close(out[1]);
	if (strcmp(mode, "wait") == 0) {
		char ready[16] = "";
		cr_assert_gt(read(out[0], ready, sizeof ready - 1), 0, "%s wait never said it was ready", program);
		cr_assert(strstr(ready, "ready"), "%s wait said %s", program, ready);
		kill(pid, SIGKILL);
	}
	cr_assert_eq(waitpid(pid, status, 0), pid);
	close(out[0]);
	for (size_t i = 0; envp[i]; i++)
		if (strncmp(envp[i], "POSTMORTEM_DIR=", 15) == 0)
			free(envp[i]);
	free(envp);
	return pid;
}

void
runs_six(const char *dir, const char *const *env, pid_t pids[RUNS_SIX])
{
	for (int i = 0; i < RUNS_SIX; i++) {
		int status;
		pids[i] = runs_run("crash_runs", dir, runs_six_modes[i], env, &status);
		bool want_signal = i >= 4;
		cr_assert_eq(WIFSIGNALED(status), want_signal, "run %d (%s): status %#x", i, runs_six_modes[i], status);
	}
}
