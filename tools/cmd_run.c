/*
 * cmd_run.c — `postmortem run [--dir D] -- PROG ARGS`: run an unmodified
 * program with the crash reporter preloaded, and say what its crash left.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

extern char **environ;

static const char usage_line[] = "run [--dir D] [--] PROG [ARGS...]";
static const char preload_name[] = "libpostmortem-preload.so";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Run PROG with the crash reporter preloaded (LD_PRELOAD of %s),\n"
	       "so a dynamically linked program needs no change to leave a report when it\n"
	       "crashes.  If it crashed, say where the report is and explain it on standard\n"
	       "error.  Programs it starts inherit the reporter.  A statically linked or\n"
	       "set-user-ID program cannot be preloaded and leaves no report.\n\n"
	       "%s"
	       "  -h, --help    show this help\n\n"
	       "Exit status: PROG's own: its exit code, or 128 + the signal number when a\n"
	       "signal ended it (139 for SIGSEGV), as a shell reports it.  Before PROG\n"
	       "starts, `run` itself may fail with 1 (the preload library was not found),\n"
	       "2 (bad usage), 126 (PROG cannot be executed) or 127 (PROG not found),\n"
	       "always with a message.\n",
	       usage_line, preload_name, cli_dir_help);
}

/* Next to this binary in the build tree first, so a build never picks up an
 * older installed copy; then where `meson install` puts it. */
static bool
find_preload(char *out, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		int k = snprintf(out, cap, "%s/../delivery/%s", exe, preload_name);
		if (k > 0 && (size_t)k < cap && access(out, R_OK) == 0)
			return true;
	}
	int k = snprintf(out, cap, "%s", PM_PRELOAD_PATH);
	return k > 0 && (size_t)k < cap && access(out, R_OK) == 0;
}

static char *
env_pair(const char *key, const char *value, const char *more)
{
	char *s;
	if (asprintf(&s, "%s=%s%s%s", key, value, more ? " " : "", more ? more : "") < 0)
		return NULL;
	return s;
}

/* environ with LD_PRELOAD (ours first, the user's kept) and POSTMORTEM_DIR
 * set; the two new strings go to owned[] for the caller to free. */
static char **
child_env(const char *preload, const char *dir, char *owned[2])
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 3, sizeof *env);
	const char *old = getenv("LD_PRELOAD");
	owned[0] = env_pair("LD_PRELOAD", preload, old && *old ? old : NULL);
	owned[1] = dir ? env_pair("POSTMORTEM_DIR", dir, NULL) : NULL;
	if (!env || !owned[0] || (dir && !owned[1])) {
		free(env);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && !(dir && strncmp(environ[i], "POSTMORTEM_DIR=", 15) == 0))
			env[k++] = environ[i];
	env[k++] = owned[0];
	if (owned[1])
		env[k++] = owned[1];
	return env;
}

/* Run PROG and wait; like system(), leave ^C and ^\ to the program. */
static int
spawn_wait(char **argv, char **env, pid_t *pid, int *status)
{
	posix_spawnattr_t attr;
	sigset_t def;
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	int err = posix_spawnp(pid, argv[0], NULL, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	while (err == 0 && waitpid(*pid, status, 0) < 0) {
		if (errno != EINTR) {
			err = errno;
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return err;
}

static const char *
signal_name(int sig, char *buf, size_t cap)
{
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, cap, "SIG%s", abbrev);
	else
		snprintf(buf, cap, "signal %d", sig);
	return buf;
}

/* Tell where the report of process pid is, and explain it.  False if there is none. */
static bool
report_crash(const char *dir, pid_t pid, int64_t started)
{
	pm_store *s;
	if (cli_open_store("run", dir, &s) != PM_EXIT_OK)
		return false;
	bool found = false;
	static const pm_report_state states[] = { PM_STATE_PENDING, PM_STATE_PARTIAL };
	for (size_t k = 0; !found && k < 2; k++) {
		for (size_t i = 0; !found && i < pm_store_count(s, states[k]); i++) {
			const pm_store_entry *e = pm_store_get(s, states[k], i);
			pm_report r;
			/* Only a crash since PROG started can be its own (a second of clock slack). */
			if (e->time && e->time < started - 1)
				continue;
			if (pm_store_load(s, e->id, &r, NULL) == PM_OK && r.header.pid == pid) {
				const char *crash = NULL, *json = NULL;
				pm_store_paths(s, e->id, &crash, &json);
				cli_error("run", "report %s%s", crash ? crash : json ? json : e->id,
				          states[k] == PM_STATE_PARTIAL ? " (partial)" : "");
				char *text = pm_explain(&r, false);
				if (text)
					cli_print_masked(stderr, text);
				free(text);
				found = true;
			}
			pm_report_free(&r);
		}
	}
	pm_store_close(s);
	return found;
}

static int
run(const char *dir, char **argv)
{
	char preload[PATH_MAX];
	if (!find_preload(preload, sizeof preload)) {
		cli_error("run", "cannot find %s (looked beside this program's build and in %s)",
		          preload_name, PM_PRELOAD_PATH);
		return PM_EXIT_FAIL;
	}
	/* The loader splits LD_PRELOAD at spaces and colons. */
	if (strpbrk(preload, " :")) {
		cli_error("run", "the path %s cannot go into LD_PRELOAD (it holds a space or colon)", preload);
		return PM_EXIT_FAIL;
	}
	char *owned[2] = { NULL, NULL };
	char **env = child_env(preload, dir, owned);
	pid_t pid = 0;
	int status = 0, err = env ? 0 : ENOMEM;
	int64_t started = (int64_t)time(NULL);
	if (env)
		err = spawn_wait(argv, env, &pid, &status);
	free(env);
	free(owned[0]);
	free(owned[1]);
	if (err) {
		cli_error("run", "cannot run %s: %s", argv[0], strerror(err));
		return err == ENOENT ? 127 : err == ENOMEM ? PM_EXIT_FAIL : 126;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	int sig = WTERMSIG(status);
	char name[32];
	cli_error("run", "%s was killed by %s", argv[0], signal_name(sig, name, sizeof name));
	if (!report_crash(dir, pid, started))
		fprintf(stderr, "postmortem run: no report was written (SIGKILL and SIGSTOP cannot be caught;\n"
		                "a statically linked or set-user-ID program ignores LD_PRELOAD)\n");
	return 128 + sig;
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	int c;
	/* '+': stop at PROG, whose own options are not ours. */
	while ((c = getopt_long(argc, argv, "+d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("run", usage_line);
		}
	}
	if (optind >= argc)
		return cli_usage_error("run", usage_line);
	return run(dir, argv + optind);
}
