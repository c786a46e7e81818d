/*
 * Real runtimes that take SIGSEGV on purpose (issue 30, docs/runtimes.md):
 * OpenJDK, node and Mono, each under `postmortem run`, and the JVM and node
 * with postmortem installed from a native library they load (linked).  A
 * healthy program leaves no report and its exit 0; a real crash leaves
 * exactly one, of the fault, with the runtime's own output and exit status.
 * strace, run apart, proves that each healthy program really takes the
 * faults postmortem must leave alone.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

/* The runtime's program (a path), failing the test when it was not found at setup. */
static const char *
java(void)
{
	const char *p = getenv("PM_JAVA");
	cr_assert(p && access(p, X_OK) == 0, "no JDK at setup: CI installs openjdk-17-jdk-headless (Makefile PACKAGES)");
	return p;
}

static char *
on_path(const char *name, const char *package)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "command -v %s", name) > 0);
	int st = pm_test_run(cmd, &out);
	free(cmd);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "no %s: CI installs %s (Makefile)", name, package);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/* The arguments that run program `what` of runtime `rt` ("java", "node", "mono"), in shell words. */
static char *
args_for(const char *rt, const char *what)
{
	char *a;
	if (strcmp(rt, "java") == 0)
		cr_assert(asprintf(&a, "-Djava.library.path='%s' -cp '%s' Runtimes %s", pm_test_build("tests"),
		                   pm_test_build("tests"), what) > 0);
	else if (strcmp(rt, "node") == 0)
		cr_assert(asprintf(&a, "'%s/runtimes.js' %s", getenv("PM_MANAGED_SRC"), what) > 0);
	else
		cr_assert(asprintf(&a, "'%s' %s", pm_test_build("tests/Runtimes.exe"), what) > 0);
	return a;
}

static char *
runtime(const char *rt)
{
	if (strcmp(rt, "java") == 0)
		return strdup(java());
	return on_path(rt, strcmp(rt, "node") == 0 ? "nodejs" : "mono-runtime");
}

/* How many SIGSEGVs the program takes, without postmortem (strace, signals only). */
static int
segvs_taken(const char *rt, const char *what)
{
	char *dir = pm_test_tmpdir(), *prog = runtime(rt), *args = args_for(rt, what), *cmd, *out;
	cr_assert(asprintf(&cmd, "strace -f -qq -e trace=none -e signal=SIGSEGV -o '%s/trace' '%s' %s >/dev/null 2>&1; "
	                   "grep -c -- '--- SIGSEGV {' '%s/trace'", dir, prog, args, dir) > 0);
	pm_test_run(cmd, &out);
	int n = atoi(out);
	free(out);
	free(cmd);
	free(args);
	free(prog);
	pm_test_rmdir(dir);
	return n;
}

/* The runtime's program run directly (postmortem installed by the library
 * it loads), with `what`'s words as its arguments. */
static void
run_linked(crash_run *run, const char *rt, const char *const *argv)
{
	char *prog = runtime(rt);
	crash_run_program_noreport(run, prog, argv, NULL);
	free(prog);
}

/* `postmortem run -- RUNTIME what`: its output and the program's (malloc'd). */
static char *
run_under_postmortem(crash_run *run, const char *rt, const char *what)
{
	char *prog = runtime(rt), *args = args_for(rt, what), *out;
	crash_run_cli(run, prog, args, &out);
	free(args);
	free(prog);
	return out;
}

static void
expect_exit(const crash_run *run, int status, const char *out)
{
	cr_expect(WIFEXITED(run->status) && WEXITSTATUS(run->status) == status, "run's status %#x, not %d:\n%s",
	          run->status, status, out);
}

/* A healthy program: it takes at least `least` SIGSEGVs, exits 0, and postmortem writes nothing. */
static void
healthy(const char *rt, const char *what, int least, const char *says)
{
	int taken = segvs_taken(rt, what);
	cr_expect_geq(taken, least, "%s %s took %d SIGSEGVs, not the %d+ this test is about", rt, what, taken, least);
	crash_run run;
	char *out = run_under_postmortem(&run, rt, what);
	expect_exit(&run, 0, out);
	cr_expect(strstr(out, says) != NULL, "no '%s' in:\n%s", says, out);
	cr_expect_eq(run.reports, 0, "%d reports of faults the runtime handled:\n%s", run.reports, out);
	free(out);
	crash_run_free(&run);
}

/* One report, of a SIGSEGV at 0x10 (or of sig when it is not SIGSEGV), whose
 * crashed thread's frame 0 is `frame0` (NULL: not looked at); named in `out`
 * by `postmortem run` (NULL: run directly). */
static void
one_report(const crash_run *run, int sig, const char *frame0, const char *out)
{
	cr_assert_eq(run->reports, 1, "%d reports, not 1:\n%s", run->reports, out);
	cr_assert(run->crash_path && run->json_path);
	const pm_report *twins[] = { &run->text, &run->json };
	for (size_t k = 0; k < 2; k++) {
		const pm_exception *e = &twins[k]->exception;
		const char *which = k ? "json" : "crash";
		cr_expect_eq(e->signal, sig, "%s: signal %d", which, e->signal);
		if (sig == SIGSEGV)
			cr_expect(e->has_address && e->address == 16, "%s: address %#llx", which,
			          (unsigned long long)e->address);
		int32_t c = pm_report_crashed_thread(twins[k]);
		cr_assert_geq(c, 0);
		const pm_thread *t = &twins[k]->threads[c];
		if (frame0)
			cr_expect(t->frame_count && t->frames[0].symbol && strstr(t->frames[0].symbol, frame0),
			          "%s: frame 0 is %s", which, t->frame_count ? t->frames[0].symbol : "none");
	}
	if (out)
		cr_expect(strstr(out, run->crash_path) != NULL, "run does not name the report:\n%s", out);
}

/* The description of a fault the runtime's handler was given first. */
static void
expect_handed(const crash_run *run, const char *handler_image, const char *how)
{
	const char *d = run->json.exception.term_description;
	cr_expect(d && strstr(d, handler_image) && strstr(d, how), "description: %s", d ? d : "none");
}

Test(managed, jvm_null_checks_in_compiled_code_are_not_crashes, .timeout = 240)
{
	healthy("java", "npe", 10, "caught 10000");
}

Test(managed, jvm_stack_overflow_caught_is_not_a_crash, .timeout = 240)
{
	healthy("java", "overflow", 10, "caught 10");
}

Test(managed, jvm_safepoint_polls_are_not_crashes, .timeout = 240)
{
	healthy("java", "safepoint", 1, "collections ");
}

/* The JVM's handler gives up on a fault it does not own: hs_err file, its
 * message, abort().  One report, of the fault in Unsafe_PutInt, that names
 * the JVM's own log; the JVM's exit status (SIGABRT). */
Test(managed, jvm_crash_in_unsafe_is_one_report_of_the_fault, .timeout = 240)
{
	crash_run run;
	char *out = run_under_postmortem(&run, "java", "unsafe");
	expect_exit(&run, 128 + SIGABRT, out);
	cr_expect(strstr(out, "A fatal error has been detected by the Java Runtime Environment") != NULL, "%s", out);
	one_report(&run, SIGSEGV, "Unsafe_PutInt", out);
	expect_handed(&run, "libjvm.so", "it called abort()");
	cr_expect(crash_asi_line(&run.json, "The Java runtime's own crash log: /") >= 0 &&
	          crash_asi_line(&run.json, "/hs_err_pid") >= 0, "no hs_err path in ASI:\n%s", out);
	cr_expect(crash_asi_line(&run.text, "/hs_err_pid") >= 0, "no hs_err path in the .crash");
	free(out);
	crash_run_free(&run);
}

Test(managed, jvm_crash_in_jni_code_is_one_report_of_the_fault, .timeout = 240)
{
	crash_run run;
	char *out = run_under_postmortem(&run, "java", "jni");
	expect_exit(&run, 128 + SIGABRT, out);
	one_report(&run, SIGSEGV, "Java_Runtimes_fault", out);
	expect_handed(&run, "libjvm.so", "it called abort()");
	free(out);
	crash_run_free(&run);
}

/* The JVM with postmortem installed by the app itself, through JNI, after
 * the JVM's handlers (java -Djava.library.path=… -cp … Runtimes MODE linked). */
static void
run_jvm_linked(crash_run *run, const char *mode)
{
	char *lib, *cp;
	cr_assert(asprintf(&lib, "-Djava.library.path=%s", pm_test_build("tests")) > 0);
	cr_assert((cp = strdup(pm_test_build("tests"))) != NULL);
	const char *argv[] = { lib, "-cp", cp, "Runtimes", mode, "linked", NULL };
	run_linked(run, "java", argv);
	free(cp);
	free(lib);
}

Test(managed, jvm_with_postmortem_linked_leaves_no_report_for_null_checks, .timeout = 240)
{
	crash_run run;
	run_jvm_linked(&run, "npe");
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0, "status %#x", run.status);
	cr_expect_eq(run.reports, 0, "%d reports", run.reports);
	crash_run_free(&run);
}

Test(managed, jvm_with_postmortem_linked_reports_a_jni_crash_once, .timeout = 240)
{
	crash_run run;
	run_jvm_linked(&run, "jni");
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGABRT, "status %#x", run.status);
	one_report(&run, SIGSEGV, "Java_Runtimes_fault", NULL);
	expect_handed(&run, "libjvm.so", "it called abort()");
	crash_run_free(&run);
}

/* The same under `postmortem run`: the preload library reports the process,
 * and the copy of libpostmortem the JNI library brings installs nothing. */
Test(managed, jvm_with_postmortem_linked_under_run_reports_once, .timeout = 240)
{
	crash_run run;
	char *out = run_under_postmortem(&run, "java", "jni linked");
	expect_exit(&run, 128 + SIGABRT, out);
	one_report(&run, SIGSEGV, "Java_Runtimes_fault", out);
	free(out);
	crash_run_free(&run);
}

Test(managed, wasm_bounds_traps_are_not_crashes, .timeout = 240)
{
	healthy("node", "wasm", 100, "caught 200");
}

Test(managed, node_abort_is_one_report, .timeout = 240)
{
	crash_run run;
	char *out = run_under_postmortem(&run, "node", "abort");
	expect_exit(&run, 128 + SIGABRT, out);
	one_report(&run, SIGABRT, NULL, out);
	free(out);
	crash_run_free(&run);
}

/* node's handler, not a wasm trap, puts the default action back and raises
 * the signal again: one report, of the fault in the addon; node dies of it. */
Test(managed, node_addon_crash_is_one_report_of_the_fault, .timeout = 240)
{
	crash_run run;
	char *args;
	cr_assert(asprintf(&args, "crash '%s'", pm_test_build("tests/pm_addon.node")) > 0);
	char *out = run_under_postmortem(&run, "node", args);
	free(args);
	expect_exit(&run, 128 + SIGSEGV, out);
	cr_expect(strstr(out, "caught 200") != NULL, "%s", out);
	one_report(&run, SIGSEGV, "crash", out);
	expect_handed(&run, "node", "it raised SIGSEGV");
	free(out);
	crash_run_free(&run);
}

/* The addon installs postmortem, after node's handlers: the wasm traps
 * leave no report, the addon's crash one. */
Test(managed, node_with_postmortem_linked_reports_an_addon_crash_once, .timeout = 240)
{
	crash_run run;
	char *script, *addon;
	cr_assert(asprintf(&script, "%s/runtimes.js", getenv("PM_MANAGED_SRC")) > 0);
	cr_assert((addon = strdup(pm_test_build("tests/pm_addon_linked.node"))) != NULL);
	const char *argv[] = { script, "crash", addon, NULL };
	run_linked(&run, "node", argv);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "status %#x", run.status);
	one_report(&run, SIGSEGV, "crash", NULL);
	expect_handed(&run, "node", "it raised SIGSEGV");
	free(addon);
	free(script);
	crash_run_free(&run);
}

Test(managed, mono_null_references_are_not_crashes, .timeout = 240)
{
	healthy("mono", "nre", 100, "caught 100");
}

/* Mono's handler moves the context to its own code on the thread's stack,
 * prints its native crash report there and aborts: one report, of the fault
 * in strlen, which the abort's walk passes. */
Test(managed, mono_native_crash_is_one_report_of_the_fault, .timeout = 240)
{
	crash_run run;
	char *out = run_under_postmortem(&run, "mono", "native");
	expect_exit(&run, 128 + SIGABRT, out);
	cr_expect(strstr(out, "Got a SIGSEGV while executing native code") != NULL, "%s", out);
	one_report(&run, SIGSEGV, NULL, out);
	expect_handed(&run, "mono", "moved the context to its own code and gave up there: it called abort()");
	free(out);
	crash_run_free(&run);
}

/* The app calls pm_install itself (P/Invoke), after Mono's handlers.  (Its native
 * crash is not reported so: Mono puts SIGABRT's default action back before it
 * aborts, and nothing keeps postmortem's handler in place: docs/runtimes.md.) */
static void
run_mono_linked(crash_run *run, const char *mode)
{
	char *exe, *libs;
	cr_assert((exe = strdup(pm_test_build("tests/Runtimes.exe"))) != NULL);
	cr_assert(asprintf(&libs, "LD_LIBRARY_PATH=%s", pm_test_build(".")) > 0);
	const char *argv[] = { exe, mode, "linked", NULL }, *env[] = { libs, NULL };
	char *prog = runtime("mono");
	crash_run_program_noreport(run, prog, argv, env);
	free(prog);
	free(libs);
	free(exe);
}

Test(managed, mono_with_postmortem_linked_leaves_no_report_for_null_references, .timeout = 240)
{
	crash_run run;
	run_mono_linked(&run, "nre");
	cr_expect(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0, "status %#x", run.status);
	cr_expect_eq(run.reports, 0, "%d reports", run.reports);
	crash_run_free(&run);
}
