/*
 * test_as_interpose.c — no allocation, lock or loader call from a handler.
 *
 * Each sample runs with tests/as/interpose.c preloaded; the interposer logs
 * every malloc/calloc/realloc/free/pthread_mutex_lock/pthread_setspecific/
 * dl_iterate_phdr/dladdr made inside a handler: on a thread's alternate
 * signal stack (the fatal handler, a freeze handler) or in a real-time
 * signal's handler (the control signal, also when it sets up the alternate
 * stack of a thread that existed before pm_install).  A crash must log none.
 * A control program that does call malloc in a handler, and one that sets
 * thread-specific data in a real-time handler, show the interposer would notice.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

static char *
log_path(void)
{
	char *dir = pm_test_tmpdir(), *path;
	cr_assert(asprintf(&path, "%s/interpose.log", dir) > 0);
	free(dir);
	return path;
}

static char *
env_kv(const char *k, const char *v)
{
	char *s;
	cr_assert(asprintf(&s, "%s=%s", k, v) > 0);
	return s;
}

/* Run the control program (with `arg`) under the interposer; what it logged. */
static char *
probe_log(const char *arg)
{
	char *log = log_path(), *cmd, *out;
	char *lib = strdup(pm_test_build("tests/libpm_interpose.so")); /* static buffer */
	cr_assert(asprintf(&cmd, "PM_INTERPOSE_LOG='%s' LD_PRELOAD='%s' '%s' %s", log, lib,
	                   pm_test_build("tests/probe_unsafe_handler"), arg) > 0);
	free(lib);
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "probe failed: %s", out);
	char *text = pm_test_slurp(log, NULL);
	cr_expect(strstr(text, "loaded\n") == text, "the interposer was not loaded");
	free(out);
	free(cmd);
	free(log);
	return text;
}

Test(as_interpose, detects_malloc_in_a_handler)
{
	char *text = probe_log("");
	cr_expect(strstr(text, "malloc\n") != NULL, "the interposer missed a malloc in a handler:\n%s", text);
	free(text);
}

Test(as_interpose, detects_thread_specific_data_in_a_real_time_handler)
{
	char *text = probe_log("rt");
	cr_expect(strstr(text, "pthread_setspecific\n") != NULL,
	          "the interposer missed pthread_setspecific in a real-time signal's handler:\n%s", text);
	free(text);
}

/* Crash sample (built at `built`) under the interposer, with extra env (NULL-terminated, may be
 * NULL); the run is handed to `then` before it is freed (may be NULL). */
static void
crash_under_interposer(const char *sample, const char *built, const char *const *extra, void (*then)(crash_run *))
{
	char *path = strdup(built); /* pm_test_build's buffer is reused below */
	char *log = log_path();
	char *env[8] = { env_kv("PM_INTERPOSE_LOG", log),
	                 env_kv("LD_PRELOAD", pm_test_build("tests/libpm_interpose.so")), NULL };
	for (size_t i = 0; extra && extra[i] && i + 3 < sizeof env / sizeof env[0]; i++)
		env[2 + i] = (char *)extra[i];
	crash_run run;
	crash_run_program(&run, path, NULL, (const char *const *)env);
	char *text = pm_test_slurp(log, NULL);
	cr_expect_str_eq(text, "loaded\n", "%s: calls made from a signal handler during the crash:\n%s", sample,
	                 text);
	cr_expect(WIFSIGNALED(run.status), "%s did not die of a signal", sample);
	cr_expect(run.json.complete, "%s: the report was not completed", sample);
	/* The minidump is written in the same handler: the interposer watched it too. */
	char *dmp = crash_dmp_path(&run);
	cr_expect(access(dmp, R_OK) == 0, "%s: no minidump was written", sample);
	if (then)
		then(&run);
	free(dmp);
	crash_run_free(&run);
	free(path);
	free(text);
	free(env[0]);
	free(env[1]);
	free(log);
}

static void
expect_clean_crash_of(const char *sample, const char *built)
{
	crash_under_interposer(sample, built, NULL, NULL);
}

static void
expect_clean_crash(const char *sample)
{
	expect_clean_crash_of(sample, crash_sample_path(sample));
}

/* The stand-in uploader wrote down how it was started: the start went through. */
static void
uploader_started(crash_run *run)
{
	char *record;
	cr_assert(asprintf(&record, "%s/fake-uploader.txt", run->dir) > 0);
	for (int i = 0; i < 3000 && access(record, F_OK) != 0; i++)
		usleep(10000);
	cr_expect(access(record, F_OK) == 0, "the crash handler did not start the uploader");
	free(record);
}

/* With a destination known the handler also starts the uploader (reporter/handler/as_upload_now.c):
 * no allocation, no lock, no loader call, even while another thread holds malloc's lock. */
Test(as_interpose, uploader_start, .timeout = 60)
{
	char *fake;
	cr_assert(asprintf(&fake, "POSTMORTEM_UPLOADER=%s", pm_test_build("tests/fake_uploader")) > 0);
	const char *env[] = { fake, "POSTMORTEM_DSN=http://k3y@127.0.0.1:9/42", NULL };
	crash_under_interposer("malloc_lock", crash_sample_path("malloc_lock"), env, uploader_started);
	free(fake);
}

Test(as_interpose, null_deref, .timeout = 60) { expect_clean_crash("null_deref"); }
/* A thread from before pm_install gets its alternate stack in the control signal's handler. */
Test(as_interpose, thread_from_before_install, .timeout = 60)
{
	expect_clean_crash_of("early_thread", pm_test_build("tests/crash_early_thread"));
}
Test(as_interpose, abort, .timeout = 60) { expect_clean_crash("abort"); }
Test(as_interpose, many_threads, .timeout = 60) { expect_clean_crash("many_threads"); }
/* Enough threads that a frozen one walks some of them (reporter/capture/as_walker.c). */
Test(as_interpose, lent_walker, .timeout = 60)
{
	expect_clean_crash_of("many_walks", pm_test_build("tests/crash_many_walks"));
}
Test(as_interpose, two_threads_crash, .timeout = 60) { expect_clean_crash("two_threads_crash"); }
Test(as_interpose, stack_overflow_thread, .timeout = 60) { expect_clean_crash("stack_overflow_thread"); }
Test(as_interpose, malloc_lock, .timeout = 60) { expect_clean_crash("malloc_lock"); }
