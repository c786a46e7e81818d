#include "crash_util.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

const char *
crash_sample_path(const char *name)
{
	return pm_test_build("sample_crashes/crash_%s", name);
}

static char **
child_env(const char *dir, const char *const *extra)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	size_t m = 0;
	while (extra && extra[m])
		m++;
	char **env = calloc(n + m + 2, sizeof *env);
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "POSTMORTEM_", 11) != 0)
			env[k++] = environ[i];
	for (size_t i = 0; i < m; i++)
		env[k++] = (char *)extra[i];
	cr_assert(asprintf(&env[k++], "POSTMORTEM_DIR=%s", dir) > 0);
	return env;
}

static int
wait_bounded(pid_t pid)
{
	int status = 0;
	for (int i = 0; i < 3000; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert_fail("the child did not finish within 30 s (a hang in the handler?)");
	return status;
}

static void
find_reports(crash_run *run)
{
	char pending[4096];
	snprintf(pending, sizeof pending, "%s/pending", run->dir);
	DIR *d = opendir(pending);
	if (!d)
		return; /* no pending/ (or not a directory): no reports */
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *full;
		if (e->d_name[0] == '.')
			continue;
		cr_assert(asprintf(&full, "%s/%s", pending, e->d_name) > 0);
		if (n > 6 && strcmp(e->d_name + n - 6, ".crash") == 0) {
			run->reports++;
			free(run->crash_path);
			run->crash_path = full;
		} else if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0) {
			free(run->json_path);
			run->json_path = full;
		} else {
			free(full);
		}
	}
	closedir(d);
}

static void
load(const char *path, pm_report *r)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
	pm_err e = pm_read_report_file(path, r, &err);
	cr_assert_eq(e, PM_OK, "%s does not read back: line %u: %s", path, err.line, err.message);
}

static void
start(crash_run *run)
{
	memset(run, 0, sizeof *run);
	pm_report_init(&run->text);
	pm_report_init(&run->json);
	run->dir = pm_test_tmpdir();
}

static void
collect(crash_run *run)
{
	find_reports(run);
	if (run->crash_path)
		load(run->crash_path, &run->text);
	if (run->json_path)
		load(run->json_path, &run->json);
}

pid_t
crash_spawn(const char *path, const char *const *args, const char *dir, const char *const *env)
{
	size_t n = 0;
	while (args && args[n])
		n++;
	char **argv = calloc(n + 2, sizeof *argv);
	argv[0] = (char *)path;
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	char **envp = child_env(dir, env);
	pid_t pid;
	cr_assert_eq(posix_spawn(&pid, path, NULL, NULL, argv, envp), 0, "cannot run %s", path);
	free(envp);
	free(argv);
	return pid;
}

int
crash_wait(pid_t pid)
{
	return wait_bounded(pid);
}

void
crash_run_program_noreport(crash_run *run, const char *path, const char *const *args, const char *const *env)
{
	start(run);
	run->status = wait_bounded(crash_spawn(path, args, run->dir, env));
	collect(run);
}

void
crash_run_cli(crash_run *run, const char *path, const char *args, char **out)
{
	start(run);
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' run --dir '%s' -- '%s' %s", pm_test_build("tools/postmortem"), run->dir, path,
	                   args) > 0);
	run->status = pm_test_run(cmd, out);
	free(cmd);
	collect(run);
}

char *
crash_run_cli_exiting(crash_run *run, const char *path, const char *args, int status)
{
	char *out;
	crash_run_cli(run, path, args, &out);
	cr_expect(WIFEXITED(run->status) && WEXITSTATUS(run->status) == status, "run's status %#x, not exit %d:\n%s",
	          run->status, status, out);
	return out;
}

void
crash_run_program(crash_run *run, const char *path, const char *const *args, const char *const *env)
{
	crash_run_program_noreport(run, path, args, env);
	cr_assert(run->crash_path && run->json_path, "%s left no report in %s", path, run->dir);
}

void
crash_run_sample(crash_run *run, const char *name, const char *const *env)
{
	crash_run_program(run, crash_sample_path(name), NULL, env);
}

void
crash_run_free(crash_run *run)
{
	pm_report_free(&run->text);
	pm_report_free(&run->json);
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", run->dir) > 0) {
		if (system(cmd) != 0)
			cr_log_warn("could not remove %s", run->dir);
		free(cmd);
	}
	free(run->dir);
	free(run->crash_path);
	free(run->json_path);
}

char *
crash_dmp_path(const crash_run *run)
{
	char *p = strdup(run->crash_path);
	char *dot = strrchr(p, '.');
	cr_assert(dot && strcmp(dot, ".crash") == 0);
	strcpy(dot, ".dmp");
	return p;
}

int
crash_frame_index(const pm_report *r, const pm_thread *t, const char *symbol)
{
	(void)r;
	for (uint32_t i = 0; i < t->frame_count; i++)
		if (t->frames[i].symbol && strcmp(t->frames[i].symbol, symbol) == 0)
			return (int)i;
	return -1;
}

const char *
crash_readelf_build_id(const char *path)
{
	static char id[256];
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "readelf -n '%s'", path) > 0);
	pm_test_run(cmd, &out);
	free(cmd);
	const char *at = strstr(out, "Build ID: ");
	cr_assert(at != NULL, "readelf -n %s shows no build id", path);
	sscanf(at + 10, "%255[0-9a-f]", id);
	free(out);
	return id;
}

const char *
crash_image_build_id(const pm_image *im)
{
	static char hex[2 * PM_BUILD_ID_MAX + 1];
	for (unsigned i = 0; i < im->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", im->build_id[i]);
	hex[2 * im->build_id_len] = '\0';
	return hex;
}

const pm_image *
crash_find_image(const pm_report *r, const char *suffix)
{
	size_t n = strlen(suffix);
	for (uint32_t i = 0; i < r->image_count; i++) {
		const char *p = r->images[i].path;
		if (p && strlen(p) >= n && strcmp(p + strlen(p) - n, suffix) == 0)
			return &r->images[i];
	}
	return NULL;
}

int
crash_asi_line(const pm_report *r, const char *needle)
{
	for (uint32_t i = 0; i < r->exception.asi_count; i++)
		if (strstr(r->exception.asi[i], needle))
			return (int)i;
	return -1;
}

/* Under qemu-user /proc/self/exe is translated to the guest program but
 * /proc/thread-self/exe is not: it names the emulator. */
uint32_t
crash_emulator_threads(void)
{
	char self[PATH_MAX] = "", thread[PATH_MAX] = "";
	ssize_t a = readlink("/proc/self/exe", self, sizeof self - 1);
	ssize_t b = readlink("/proc/thread-self/exe", thread, sizeof thread - 1);
	return a > 0 && b > 0 && strcmp(self, thread) != 0 ? 1 : 0;
}

bool
crash_is_emulator_thread(const pm_thread *t)
{
	return !t->captured && !t->crashed && t->note && strstr(t->note, "blocks the signal") != NULL;
}
