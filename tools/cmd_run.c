/*
 * cmd_run.c — `postmortem run [--dir D] [--json] -- PROG ARGS`: run an
 * unmodified program with the crash reporter preloaded, and say what the
 * crashes of it and of the programs it started left, or why PROG's own left
 * nothing (cli_run_why.c).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "reports_dir.h"

extern char **environ;

static const char usage_line[] = "run [--dir D] [--json] [--] PROG [ARGS...]";
static const char preload_name[] = "libpostmortem-preload.so";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Run PROG with the crash reporter preloaded (LD_PRELOAD of %s),\n"
	       "so a dynamically linked program needs no change to leave a report when it\n"
	       "crashes.  Programs it starts, and programs it becomes (env, nice, a shell's\n"
	       "exec, a version manager's shim), inherit the reporter while their\n"
	       "environment keeps LD_PRELOAD.  Every report written while PROG ran, by PROG\n"
	       "or by any program it started, is named and explained on standard error.\n"
	       "A statically linked or set-user-ID program cannot be preloaded and leaves\n"
	       "no report; when PROG dies of a signal and no report was written, run says\n"
	       "why, as far as it can tell, and where `postmortem system enable` would\n"
	       "reach the crash from outside the process.  Once PROG ends, the directory's\n"
	       "storm control is applied as an app's next launch would: a crash loop keeps\n"
	       "the first and the latest reports of its crash group, the rest counted\n"
	       "(`postmortem list --group`).  The run is recorded as a\n"
	       "session (release health: `postmortem stats`, uploads to Sentry) with how\n"
	       "PROG ended, a SIGKILL too; PROG and what it starts record none of their\n"
	       "own (POSTMORTEM_SESSIONS=0 in their environment; set it for `run` too to\n"
	       "record nothing).\n\n"
	       "%s"
	       "  -j, --json    once PROG ends, print a JSON object on standard output:\n"
	       "                {exit_status, signal, reports: [{id, path, pid, app,\n"
	       "                exception, state}]}\n"
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
		int k = snprintf(out, cap, "%s/../reporter/%s", exe, preload_name);
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

/* environ with LD_PRELOAD (ours first, the user's kept), POSTMORTEM_DIR,
 * POSTMORTEM_SESSIONS=0 (this command records the run's session: the program
 * records none of its own) and `record`, the preload library's record's
 * name (NULL: none), set; the new strings go to owned[] for the caller to
 * free. */
static char **
child_env(const char *preload, const char *dir, char *record, char *owned[2])
{
	static char no_sessions[] = "POSTMORTEM_SESSIONS=0";
	static const char *const replaced[] = { "LD_PRELOAD=", "POSTMORTEM_SESSIONS=", PMI_RUN_RECORD_VAR "=" };
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 5, sizeof *env);
	const char *old = getenv("LD_PRELOAD");
	owned[0] = env_pair("LD_PRELOAD", preload, old && *old ? old : NULL);
	owned[1] = dir ? env_pair("POSTMORTEM_DIR", dir, NULL) : NULL;
	if (!env || !owned[0] || (dir && !owned[1])) {
		free(env);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		bool keep = !(dir && strncmp(environ[i], "POSTMORTEM_DIR=", 15) == 0);
		for (size_t r = 0; keep && r < sizeof replaced / sizeof replaced[0]; r++)
			keep = strncmp(environ[i], replaced[r], strlen(replaced[r])) != 0;
		if (keep)
			env[k++] = environ[i];
	}
	env[k++] = owned[0];
	if (owned[1])
		env[k++] = owned[1];
	env[k++] = no_sessions;
	if (record)
		env[k++] = record;
	return env;
}

/* Wait for pid to end; what the kernel keeps of it until it is reaped goes
 * to *end first. */
static int
wait_end(pid_t pid, int *status, cli_run_end *end)
{
	siginfo_t info;
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return errno;
	cli_run_end_read(pid, end);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

/* Run PROG and wait; like system(), leave ^C and ^\ to the program.  The run's
 * session: begun before PROG starts, written once its pid is known, ended with
 * its status. */
static int
spawn_wait(char **argv, char **env, const char *dir, pid_t *pid, int *status, cli_run_end *end)
{
	pm_run_watch watch;
	pm_run_watch_start(&watch, dir);
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
	if (err == 0) {
		pm_run_watch_spawned(&watch, *pid, argv[0]);
		err = wait_end(*pid, status, end);
	}
	pm_run_watch_end(&watch, err == 0 ? *status : -1);
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

/* The reports there before PROG started: only the others are its own. */
typedef struct id_set {
	char (*id)[sizeof ((pm_store_entry *)0)->id];
	size_t n;
} id_set;

static const pm_report_state fresh_states[] = { PM_STATE_PENDING, PM_STATE_PARTIAL };

static void
remember_reports(const char *dir, id_set *seen)
{
	pm_store_options opt = { .dir = dir, .read_only = true };
	pm_store *s;
	seen->id = NULL;
	seen->n = 0;
	if (pm_store_open(&s, &opt) != PM_OK)
		return; /* no directory yet: every report will be new */
	size_t total = 0;
	for (size_t k = 0; k < 2; k++)
		total += pm_store_count(s, fresh_states[k]);
	seen->id = calloc(total ? total : 1, sizeof *seen->id);
	for (size_t k = 0; seen->id && k < 2; k++)
		for (size_t i = 0; i < pm_store_count(s, fresh_states[k]); i++)
			memcpy(seen->id[seen->n++], pm_store_get(s, fresh_states[k], i)->id, sizeof *seen->id);
	pm_store_close(s);
}

static bool
seen_before(const id_set *seen, const char *id)
{
	for (size_t i = 0; i < seen->n; i++)
		if (strcmp(seen->id[i], id) == 0)
			return true;
	return false;
}

/* Name and explain one new report on stderr; add it to reports (may be NULL). */
static void
tell_report(pm_store *s, const pm_store_entry *e, cJSON *reports)
{
	pm_report r;
	bool loaded = pm_store_load(s, e->id, &r, NULL) == PM_OK;
	const char *crash = NULL, *json = NULL;
	pm_store_paths(s, e->id, &crash, &json);
	const char *path = crash ? crash : json ? json : e->id;
	int64_t pid = loaded ? r.header.pid : -1;
	cli_error("run", "report %s%s (%s, process %lld)", path, e->state == PM_STATE_PARTIAL ? " (partial)" : "",
	          e->app[0] ? e->app : "?", (long long)pid);
	char *text = loaded ? pm_explain(&r, false) : NULL;
	if (text)
		cli_print_masked(stderr, text);
	free(text);
	if (loaded)
		pm_report_free(&r);
	cJSON *o = reports ? cJSON_CreateObject() : NULL;
	if (!o || !cJSON_AddItemToArray(reports, o))
		return;
	cJSON_AddStringToObject(o, "id", e->id);
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "pid", (double)pid);
	cJSON_AddStringToObject(o, "app", e->app);
	cJSON_AddStringToObject(o, "exception", e->exception);
	cJSON_AddStringToObject(o, "state", cli_state_name(e->state));
}

/* Tell every report written since PROG started, by whichever process; how many. */
static size_t
tell_reports(const char *dir, const id_set *seen, cJSON *reports)
{
	pm_store_options opt = { .dir = dir, .read_only = true };
	pm_store *s;
	if (pm_store_open(&s, &opt) != PM_OK)
		return 0;
	size_t told = 0;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < pm_store_count(s, fresh_states[k]); i++) {
			const pm_store_entry *e = pm_store_get(s, fresh_states[k], i);
			if (!seen_before(seen, e->id)) {
				tell_report(s, e, reports);
				told++;
			}
		}
	pm_store_close(s);
	return told;
}

/* The store's own rules applied now, as the next launch of an app would
 * (docs/store.md): a crash loop under run keeps the first and the latest
 * reports of each crash group and counts the rest, instead of leaving one
 * set of files per crash.  Said when it dropped any of the told ones. */
static void
apply_store_rules(const char *dir, const id_set *seen, size_t told)
{
	pm_store_options opt = { .dir = dir };
	pm_store *s;
	if (told < 2 || pm_store_open(&s, &opt) != PM_OK)
		return;
	size_t kept = 0;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < pm_store_count(s, fresh_states[k]); i++)
			kept += !seen_before(seen, pm_store_get(s, fresh_states[k], i)->id);
	pm_store_close(s);
	if (kept < told)
		cli_error("run", "storm control kept %zu of these %zu reports; every crash is counted in its crash group "
		          "(`postmortem list --group`)", kept, told);
}

/* The --json summary on standard output. */
static void
print_summary(int status, int sig, cJSON *reports)
{
	cJSON *o = cJSON_CreateObject();
	char name[32], *text = NULL;
	if (o) {
		cJSON_AddNumberToObject(o, "exit_status", status);
		if (sig)
			cJSON_AddStringToObject(o, "signal", signal_name(sig, name, sizeof name));
		else
			cJSON_AddNullToObject(o, "signal");
		cJSON_AddItemToObject(o, "reports", reports ? reports : cJSON_CreateArray());
		text = cJSON_PrintUnformatted(o);
	} else {
		cJSON_Delete(reports);
	}
	if (text)
		puts(text);
	else
		cli_error("run", "out of memory for the JSON summary");
	free(text);
	cJSON_Delete(o);
	fflush(stdout);
}

static int
run(const char *dir, bool json, char **argv)
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
	char *owned[2] = { NULL, NULL }, *record_entry;
	int record = cli_run_record_open(&record_entry);
	char **env = child_env(preload, dir, record_entry, owned);
	pid_t pid = 0;
	int status = 0, err = env ? 0 : ENOMEM;
	cli_run_end end;
	id_set seen;
	remember_reports(dir, &seen);
	if (env)
		err = spawn_wait(argv, env, dir, &pid, &status, &end);
	free(env);
	free(owned[0]);
	free(owned[1]);
	free(record_entry);
	if (err) {
		if (record >= 0)
			close(record);
		free(seen.id);
		cli_error("run", "cannot run %s: %s", argv[0], strerror(err));
		return err == ENOENT ? 127 : err == ENOMEM ? PM_EXIT_FAIL : 126;
	}
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	int rc = sig ? 128 + sig : WEXITSTATUS(status);
	char name[32];
	if (sig)
		cli_error("run", "%s was killed by %s", argv[0], signal_name(sig, name, sizeof name));
	cJSON *reports = json ? cJSON_CreateArray() : NULL;
	size_t told = tell_reports(dir, &seen, reports);
	apply_store_rules(dir, &seen, told);
	free(seen.id);
	if (sig && !told)
		cli_run_why(argv[0], dir, pid, sig, name, &end, record);
	if (record >= 0)
		close(record);
	if (json)
		print_summary(rc, sig, reports);
	return rc;
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	bool json = false;
	int c;
	/* '+': stop at PROG, whose own options are not ours. */
	while ((c = getopt_long(argc, argv, "+d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'j': json = true; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("run", usage_line);
		}
	}
	if (optind >= argc)
		return cli_usage_error("run", usage_line);
	return run(dir, json, argv + optind);
}
