/*
 * test_run_exec.c — issue 38: `postmortem run` reports a program however it
 * was reached: through env, nice, a shell's exec, a version manager's shim
 * script, two execs in a row, its own re-exec, and in a forked child, each
 * crash exactly once; a program that links libpostmortem through env once,
 * by its own install; a library that installs libpostmortem late in a
 * preloaded process once, by the preload library.  Where no report can be
 * written, run's last lines say why — the environment cleared (env -i), a
 * statically linked program, a handler the program took back — and never
 * blame what was not the cause.  Each is a real crash of a real child of the
 * real `postmortem run`, its reports parsed.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "crash/crash_util.h"
#include "util.h"

static const char *
chain(void)
{
	return pm_test_build("tests/crash_exec_chain");
}

/* Exactly one report, of the NULL read in exec_chain_crash, by a process named
 * crash_exec_chain*, whose Identifier is `identifier`; run names it. */
static void
expect_one_report(const crash_run *run, const char *out, const char *identifier)
{
	cr_assert_eq(run->reports, 1, "%d reports:\n%s", run->reports, out);
	const pm_report *twins[] = { &run->text, &run->json };
	for (size_t k = 0; k < 2; k++) {
		const pm_report *r = twins[k];
		cr_expect_eq(r->exception.signal, SIGSEGV, "signal %d", r->exception.signal);
		cr_expect(r->header.process_name && strncmp(r->header.process_name, "crash_exec_chain", 16) == 0,
		          "process %s", r->header.process_name);
		cr_expect(r->header.identifier && strcmp(r->header.identifier, identifier) == 0, "identifier %s, not %s",
		          r->header.identifier, identifier);
		int32_t c = pm_report_crashed_thread(r);
		cr_assert_geq(c, 0);
		cr_expect_geq(crash_frame_index(r, &r->threads[c], "exec_chain_crash"), 0, "no exec_chain_crash frame");
	}
	cr_expect(strstr(out, run->crash_path) != NULL, "run does not name the report:\n%s", out);
	cr_expect(!strstr(out, "no report"), "%s", out);
}

/* PROG reached through `prog args` (args end with the chain's path and mode). */
static void
one_report_through(const char *prog, const char *args)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, prog, args, 128 + SIGSEGV);
	expect_one_report(&run, out, "crash_exec_chain");
	free(out);
	crash_run_free(&run);
}

static char *
chain_args(const char *before, const char *mode)
{
	char *args;
	cr_assert(asprintf(&args, "%s '%s' %s", before, chain(), mode) > 0);
	return args;
}

Test(run_exec, env)
{
	char *args = chain_args("", "crash");
	one_report_through("/usr/bin/env", args);
	free(args);
}

Test(run_exec, nice)
{
	char *args = chain_args("", "crash");
	one_report_through("/usr/bin/nice", args);
	free(args);
}

Test(run_exec, a_shells_exec)
{
	char *args;
	cr_assert(asprintf(&args, "-c 'exec \"$0\" crash' '%s'", chain()) > 0);
	one_report_through("/bin/sh", args);
	free(args);
}

/* env, then nice, then the program: three images of one process. */
Test(run_exec, two_execs_in_a_row)
{
	char *args = chain_args("nice", "crash");
	one_report_through("/usr/bin/env", args);
	free(args);
}

/* A version manager's shim (pyenv, rbenv, nvm, asdf): a script, started
 * through `#!/usr/bin/env sh`, that becomes the real program. */
Test(run_exec, a_shim_script)
{
	char *dir = pm_test_tmpdir(), *shim;
	cr_assert(asprintf(&shim, "%s/crash_exec_chain", dir) > 0);
	FILE *f = fopen(shim, "w");
	cr_assert(f != NULL);
	fprintf(f, "#!/usr/bin/env sh\n# find the real program, then become it\nexec '%s' \"$@\"\n", chain());
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(shim, 0755), 0);
	one_report_through(shim, "crash");
	free(shim);
	pm_test_rmdir(dir);
}

Test(run_exec, a_self_reexec)
{
	one_report_through(chain(), "reexec");
}

/* A forked child is its parent's image: its crash is reported, the parent
 * (which exits 0) has nothing to report — started directly, and through env. */
Test(run_exec, a_fork_child)
{
	for (int through_env = 0; through_env < 2; through_env++) {
		crash_run run;
		char *args = chain_args("", "fork");
		char *out = through_env ? crash_run_cli_exiting(&run, "/usr/bin/env", args, 0)
		                        : crash_run_cli_exiting(&run, chain(), "fork", 0);
		expect_one_report(&run, out, "crash_exec_chain");
		free(args);
		free(out);
		crash_run_free(&run);
	}
}

/* The preload library leaves a program that links libpostmortem to its own
 * pm_install, which installs even though env, before it in the same process,
 * was preloaded: one report, with the program's own Identifier. */
Test(run_exec, linked_app_through_env_reports_once_by_its_own_install)
{
	crash_run run;
	char *args;
	cr_assert(asprintf(&args, "'%s' crash", pm_test_build("tests/crash_exec_chain_linked")) > 0);
	char *out = crash_run_cli_exiting(&run, "/usr/bin/env", args, 128 + SIGSEGV);
	expect_one_report(&run, out, "exec-chain-linked");
	free(args);
	free(out);
	crash_run_free(&run);
}

/* A library loaded later installs libpostmortem (a JNI library, a node
 * addon): the image is the preload library's already, so that install adds
 * no second reporter — started directly and through env alike. */
Test(run_exec, late_install_in_a_preloaded_process_reports_once)
{
	char *lib = strdup(pm_test_build("tests/libpm_late_install.so"));
	for (int through_env = 0; through_env < 2; through_env++) {
		crash_run run;
		char *args;
		cr_assert(asprintf(&args, "%s%s%slate '%s'", through_env ? "'" : "", through_env ? chain() : "",
		                   through_env ? "' " : "", lib) > 0);
		char *out = crash_run_cli_exiting(&run, through_env ? "/usr/bin/env" : chain(), args, 128 + SIGSEGV);
		expect_one_report(&run, out, "crash_exec_chain");
		free(args);
		free(out);
		crash_run_free(&run);
	}
	free(lib);
}

/* No report; run's words say `why` and none of the causes in `not`. */
static void
expect_no_report_because(const char *prog, const char *args, const char *why, const char *const *not)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, prog, args, 128 + SIGSEGV);
	cr_expect_eq(run.reports, 0, "%d reports:\n%s", run.reports, out);
	cr_expect(strstr(out, "postmortem run: no report: ") && strstr(out, why), "not '%s':\n%s", why, out);
	for (size_t i = 0; not[i]; i++)
		cr_expect(!strstr(out, not[i]), "'%s' is not the cause:\n%s", not[i], out);
	cr_expect(strstr(out, "postmortem run: `postmortem system enable`") ||
	                  strstr(out, "postmortem run: the system reporter is on"),
	          "no word of the system reporter:\n%s", out);
	free(out);
	crash_run_free(&run);
}

Test(run_exec, env_i_leaves_no_report_and_says_the_environment_was_cleared)
{
	static const char *const not[] = { "SIGKILL", "statically", "set-user-ID", "handler", NULL };
	char *args = chain_args("-i", "crash");
	char *why;
	cr_assert(asprintf(&why, "ended in %s, which postmortem was not in: its environment no longer had LD_PRELOAD, "
	                         "cleared after /usr/bin/env (as env -i and sudo clear it)", chain()) > 0);
	expect_no_report_because("/usr/bin/env", args, why, not);
	free(why);
	free(args);
}

/* Started directly, and through env (whose arguments name it). */
Test(run_exec, a_static_program_is_named_so)
{
	static const char *const not[] = { "SIGKILL", "environment", "set-user-ID", "handler", NULL };
	char *prog = strdup(pm_test_build("tests/sys_crash_static"));
	char *why, *args;
	cr_assert(asprintf(&why, "ended in %s, which postmortem was not in: it is statically linked", prog) > 0);
	expect_no_report_because(prog, "", why, not);
	cr_assert(asprintf(&args, "'%s'", prog) > 0);
	expect_no_report_because("/usr/bin/env", args, why, not);
	free(args);
	free(why);
	free(prog);
}

/* The program took SIGSEGV back from postmortem behind libc's back. */
Test(run_exec, a_replaced_handler_is_named_so)
{
	static const char *const not[] = { "SIGKILL", "LD_PRELOAD", "statically", "environment", NULL };
	char *why;
	cr_assert(asprintf(&why, "postmortem was installed in %s (process ", chain()) > 0);
	expect_no_report_because(chain(), "replace", why, not);
	free(why);
	crash_run run;
	char *out = crash_run_cli_exiting(&run, chain(), "replace", 128 + SIGSEGV);
	cr_expect(strstr(out, "and SIGSEGV never reached its handler: the program took the signal back") != NULL, "%s",
	          out);
	free(out);
	crash_run_free(&run);
}

/* Signals that are not crashes: said so, without blaming LD_PRELOAD. */
Test(run_exec, a_kill_is_not_blamed_on_ld_preload)
{
	static const struct {
		int sig;
		const char *why;
	} cases[] = {
		{ SIGKILL, "no report: SIGKILL ends a process before any handler can run" },
		{ SIGTERM, "no report: SIGTERM is not among the signals postmortem reports" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		crash_run run;
		char *args;
		cr_assert(asprintf(&args, "-c 'kill -%d $$'", cases[i].sig) > 0);
		char *out = crash_run_cli_exiting(&run, "/bin/sh", args, 128 + cases[i].sig);
		cr_expect(strstr(out, cases[i].why) != NULL, "%s", out);
		cr_expect(!strstr(out, "LD_PRELOAD") && !strstr(out, "statically"), "%s", out);
		free(args);
		free(out);
		crash_run_free(&run);
	}
}
