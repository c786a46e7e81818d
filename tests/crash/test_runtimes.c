/*
 * test_runtimes.c — issue 16: programs in other languages, run unchanged
 * under libpostmortem-preload.so.  A C++ program (g++) that dies of an
 * uncaught exception and a Rust program (rustc, legacy and v0 mangling)
 * that aborts through std: the .crash keeps the names as the symbol tables
 * have them; `show`, `symbolicate` and `explain` print them demangled, and
 * explain's first frame in your code passes the runtime's abort path.  The
 * C++ exception's type, what() and throw site (reporter/capture/cxx_throw.c) are in
 * Application Specific Information and the Last Exception Backtrace.
 * Runtimes that install handlers after postmortem (issue 16 item 5): a Go
 * program with cgo (go), Python's faulthandler, C programs, under the preload
 * library's sigaction; and a faulthandler-like handler in an app that links
 * libpostmortem, whose re-raise still yields the original fault.
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

/* Crash tests/<program> under the preload library; skip when its toolchain was missing. */
static bool
run_preloaded(crash_run *run, const char *program, const char *arg)
{
	const char *path = pm_test_build("tests/%s", program);
	if (access(path, X_OK) != 0) {
		cr_skip_test("%s was not built: its compiler is missing (Makefile PACKAGES has it)", program);
		return false;
	}
	char *preload;
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", pm_test_build("reporter/libpostmortem-preload.so")) > 0);
	const char *env[] = { preload, NULL };
	const char *args[] = { arg, NULL };
	crash_run_program(run, path, args, env);
	free(preload);
	cr_expect(WIFSIGNALED(run->status) && WTERMSIG(run->status) == SIGABRT, "status 0x%x", run->status);
	return true;
}

static char *
cli(const char *args, const char *path)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "'%s' %s '%s' 2>&1", pm_test_build("tools/postmortem"), args, path) > 0);
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	free(cmd);
	return out;
}

/* The crashed thread of the .crash has a frame whose symbol begins with prefix. */
static bool
has_frame(const pm_report *r, const char *prefix)
{
	int32_t k = pm_report_crashed_thread(r);
	const pm_thread *t = k >= 0 ? &r->threads[k] : NULL;
	for (uint32_t i = 0; t && i < t->frame_count; i++)
		if (t->frames[i].symbol && strncmp(t->frames[i].symbol, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* The line after "first frame in your code:" names `want`. */
static void
expect_first_in_your_code(const char *explained, const char *want)
{
	const char *p = strstr(explained, "first frame in your code:\n");
	cr_assert(p != NULL, "no first frame in your code:\n%s", explained);
	p = strchr(p, '\n') + 1;
	size_t n = strcspn(p, "\n");
	char *line = strndup(p, n);
	cr_expect(strstr(line, want) != NULL, "first frame in your code is '%s', not %s:\n%s", line, want, explained);
	free(line);
}

/* show, symbolicate and explain all print `plain`, none `mangled`, and
 * explain's first frame in your code is it. */
static void
expect_readable(const crash_run *run, const char *mangled, const char *plain)
{
	cr_expect(has_frame(&run->text, mangled), "the .crash does not keep %s as the symbol table has it", mangled);
	char *shown = cli("show", run->crash_path);
	cr_expect(strstr(shown, plain) && !strstr(shown, mangled), "show FILE:\n%s", shown);
	free(shown);
	/* By id, show prints the stored text itself: demangled word by word. */
	char *args, *id = strdup(strrchr(run->crash_path, '/') + 1);
	*strrchr(id, '.') = 0;
	cr_assert(asprintf(&args, "show --dir '%s'", run->dir) > 0);
	shown = cli(args, id);
	cr_expect(strstr(shown, plain) && !strstr(shown, mangled), "show ID:\n%s", shown);
	cr_expect(strstr(shown, "Binary Images:") != NULL, "show ID:\n%s", shown);
	free(shown);
	free(args);
	free(id);
	char *symb = cli("symbolicate", run->crash_path);
	cr_expect(strstr(symb, plain) && !strstr(symb, mangled), "symbolicate:\n%s", symb);
	free(symb);
	char *explained = cli("explain", run->crash_path);
	expect_first_in_your_code(explained, plain);
	cr_expect(!strstr(explained, mangled), "explain:\n%s", explained);
	free(explained);
}

Test(runtimes, cxx_names_demangled_and_first_frame_is_the_thrower, .timeout = 120)
{
	crash_run run;
	if (!run_preloaded(&run, "crash_cxx_throw", NULL))
		return;
	expect_readable(&run, "_ZN3app12parse_configEi", "app::parse_config(int)");
	/* Symbolicated by default: the app was built with -g. */
	char *explained = cli("explain", run.crash_path);
	cr_expect(strstr(explained, "cxx_throw.cpp:") != NULL, "explain did not symbolicate:\n%s", explained);
	free(explained);
	explained = cli("explain --no-symbolicate", run.crash_path);
	cr_expect(strstr(explained, "cxx_throw.cpp:") == NULL, "--no-symbolicate symbolicated:\n%s", explained);
	expect_first_in_your_code(explained, "app::parse_config(int)");
	free(explained);
	crash_run_free(&run);
}

/* Rust's std is linked into the app: its abort frames are in the app's
 * image and must be passed. */
Test(runtimes, rust_legacy_names_demangled_and_std_abort_path_passed, .timeout = 120)
{
	crash_run run;
	if (!run_preloaded(&run, "crash_words_rust_legacy", NULL))
		return;
	expect_readable(&run, "_ZN23crash_words_rust_legacy3app12parse_config", "crash_words_rust_legacy::app::parse_config");
	char *explained = cli("explain", run.crash_path);
	cr_expect(strstr(explained, "std::process::abort") != NULL, "%s", explained);
	cr_expect(strstr(explained, "words_rust.rs:") != NULL, "explain did not symbolicate:\n%s", explained);
	free(explained);
	crash_run_free(&run);
}

Test(runtimes, rust_v0_names_demangled, .timeout = 120)
{
	crash_run run;
	if (!run_preloaded(&run, "crash_words_rust_v0", NULL))
		return;
	expect_readable(&run, "_RNv", "crash_words_rust_v0::app::parse_config");
	crash_run_free(&run);
}

/* The index of the first frame whose symbol is `symbol`, or -1. */
static int
leb_frame(const pm_report *r, const char *symbol)
{
	for (uint32_t i = 0; i < r->leb_count; i++)
		if (r->last_exception_backtrace[i].symbol && strcmp(r->last_exception_backtrace[i].symbol, symbol) == 0)
			return (int)i;
	return -1;
}

Test(runtimes, cxx_uncaught_exception_type_what_and_throw_site, .timeout = 120)
{
	crash_run run;
	if (!run_preloaded(&run, "crash_cxx_throw", NULL))
		return;
	/* As the crash path writes it: the type mangled, as a name demanglers read. */
	const char *line = "terminating due to uncaught exception of type _ZSt13runtime_error: bad config line 42";
	cr_expect(crash_asi_line(&run.text, line) >= 0, "the .crash has no ASI line '%s'", line);
	cr_expect(crash_asi_line(&run.json, line) >= 0, "the JSON twin has no ASI line '%s'", line);
	/* The throw site: the hook, then the thrower, then main. */
	const pm_report *twins[] = { &run.text, &run.json };
	for (size_t k = 0; k < 2; k++) {
		const pm_report *r = twins[k];
		cr_assert_geq(r->leb_count, 3, "%s: no Last Exception Backtrace", k ? "json" : "crash");
		cr_expect_str_eq(r->last_exception_backtrace[0].symbol, "__cxa_throw");
		cr_expect_eq(leb_frame(r, "_ZN3app12parse_configEi"), 1, "%s: the thrower is not frame 1", k ? "json" : "crash");
		cr_expect_eq(leb_frame(r, "main"), 2);
	}
	char *explained = cli("explain", run.crash_path);
	cr_expect(strstr(explained, "uncaught exception of type std::runtime_error: bad config line 42"), "%s",
	          explained);
	const char *thrown = strstr(explained, "The exception was thrown at (Last Exception Backtrace):\n");
	cr_expect(thrown && strstr(thrown, "  crash_cxx_throw  app::parse_config(int) + ") &&
	          strstr(thrown, "cxx_throw.cpp:"), "%s", explained);
	free(explained);
	char *shown = cli("show", run.crash_path);
	cr_expect(strstr(shown, "uncaught exception of type std::runtime_error: bad config line 42"), "%s", shown);
	cr_expect(strstr(shown, "Last Exception Backtrace:\n0   ") != NULL, "%s", shown);
	free(shown);
	crash_run_free(&run);
}

/* An exception that was caught is not why the process died: neither its
 * type nor its throw site are in the report of a later abort(). */
Test(runtimes, cxx_caught_exception_is_not_the_cause, .timeout = 120)
{
	crash_run run;
	if (!run_preloaded(&run, "crash_cxx_throw", "caught"))
		return;
	cr_expect(crash_asi_line(&run.text, "uncaught exception") < 0, "a caught exception is named");
	cr_expect_eq(run.text.leb_count, 0, "a caught exception's backtrace is kept");
	cr_expect_eq(run.json.leb_count, 0);
	crash_run_free(&run);
}

/* The fault as the kernel reported it: SIGSEGV, SEGV_MAPERR at addr, in both twins.
 * `handed`: how the termination description ends when a handler beside
 * postmortem's was given the fault first and gave up (NULL: postmortem reported it
 * first, and there is no description; "": not looked at). */
static void
expect_original_fault(const crash_run *run, uint64_t addr, const char *handed)
{
	const pm_report *twins[] = { &run->text, &run->json };
	for (size_t k = 0; k < 2; k++) {
		const pm_exception *e = &twins[k]->exception;
		const char *which = k ? "json" : "crash";
		cr_expect_eq(e->signal, SIGSEGV, "%s: signal %d", which, e->signal);
		cr_expect(e->has_si_code && e->si_code == SEGV_MAPERR, "%s: si_code %d", which, e->si_code);
		cr_expect(e->has_address && e->address == addr, "%s: address 0x%llx", which,
		          (unsigned long long)e->address);
		if (!handed) {
			cr_expect(!e->term_description, "%s: %s", which, e->term_description);
		} else if (*handed) {
			const char *d = e->term_description;
			size_t n = d ? strlen(d) : 0, k = strlen(handed);
			cr_expect(d && strncmp(d, "Given first to a signal handler beside postmortem's (", 53) == 0 &&
			          n >= k && strcmp(d + n - k, handed) == 0,
			          "%s: %s", which, d ? d : "no description");
		}
	}
}

/* Python's faulthandler, installed after postmortem (the preload library's
 * constructor ran first), sits beside postmortem's handler and is given the
 * fault first: it prints its traceback and re-raises, and that is the end:
 * the report has the original fault, and the process dies of SIGSEGV as
 * without postmortem. */
Test(runtimes, faulthandler_under_preload_keeps_the_original_fault, .timeout = 120)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, "/usr/bin/python3",
	                                  "-X faulthandler -c 'import ctypes; ctypes.string_at(0)'", 128 + SIGSEGV);
	cr_expect(strstr(out, "Fatal Python error: Segmentation fault") != NULL, "%s", out);
	cr_expect(strstr(out, "File \"<string>\", line 1 in <module>") != NULL, "no traceback:\n%s", out);
	cr_assert(run.crash_path && run.json_path, "no report:\n%s", out);
	cr_expect_eq(run.reports, 1);
	expect_original_fault(&run, 0, "which gave up on it: it raised SIGSEGV");
	char *explained = cli("explain --no-symbolicate", run.crash_path);
	cr_expect(strstr(explained, "it read or wrote memory at 0x0000000000000000") != NULL, "%s", explained);
	free(explained);
	free(out);
	crash_run_free(&run);
}

/* Under the preload library a program sees its own handlers, not
 * postmortem's (SIG_DFL before it sets one), and a signal it ignores and
 * raises stays ignored: no report, the program goes on. */
Test(runtimes, later_handlers_see_their_own_and_ignored_stays_ignored, .timeout = 120)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, pm_test_build("tests/crash_later_handlers"), "", 0);
	cr_expect_eq(run.reports, 0, "an ignored signal was reported:\n%s", out);
	free(out);
	crash_run_free(&run);
}

/* A handler set with signal() (glibc's does not go through the exported
 * sigaction) sits beside postmortem's too: given the fault first, it exits
 * (_exit(3)), and the fault is reported before the process ends. */
Test(runtimes, handler_set_with_signal_is_given_the_fault_first, .timeout = 120)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, pm_test_build("tests/crash_later_handlers"), "signal", 3);
	cr_expect(strstr(out, "signal() handler ran\n") != NULL, "%s", out);
	cr_assert(run.crash_path && run.json_path, "no report:\n%s", out);
	expect_original_fault(&run, 0x10, "which gave up on it: it called _exit(3)");
	free(out);
	crash_run_free(&run);
}

/* The crashed thread's frame past the signal trampoline: where the fault was. */
static int
fault_frame(const pm_report *r)
{
	const pm_thread *t = &r->threads[pm_report_crashed_thread(r)];
	int k = crash_frame_index(r, t, "__restore_rt");
	return k < 0 ? -1 : k + 1;
}

/* The report of a fault that a later handler caught and re-raised: the
 * exception describes the original fault, the termination says who
 * re-raised it, explain tells the fault. */
static void
expect_reraise_named(const crash_run *run, const char *fault_words)
{
	const pm_report *twins[] = { &run->text, &run->json };
	for (size_t k = 0; k < 2; k++) {
		const char *d = twins[k]->exception.term_description;
		char *want;
		int f = fault_frame(twins[k]);
		cr_assert(asprintf(&want, "Re-raised by the process itself: a signal handler installed after postmortem's "
		                   "caught this fault first and raised it again (frames 0-%d of the crashed thread; "
		                   "the fault is frame %d, past the signal frame)", f - 2, f) > 0);
		cr_expect(d && strcmp(d, want) == 0, "%s: %s", k ? "json" : "crash", d ? d : "no description");
		free(want);
	}
	char *explained = cli("explain --no-symbolicate", run->crash_path);
	cr_expect(strstr(explained, fault_words) != NULL, "%s", explained);
	cr_expect(strstr(explained, "Re-raised by the process itself: a signal handler") != NULL, "%s", explained);
	cr_expect(!strstr(explained, "the process raised it itself"), "%s", explained);
	free(explained);
}

/* An app that links libpostmortem and installs a faulthandler-like handler
 * (no SA_SIGINFO) after pm_install: no preload library, so nothing puts
 * postmortem back in front, and the signal postmortem sees is the re-raise.
 * The walk passes the original fault's signal frame: its saved registers
 * give the fault (the address the CPU reported). */
Test(runtimes, fault_reraised_by_a_later_handler_is_named_with_the_original_fault, .timeout = 120)
{
	crash_run run;
	crash_run_program(&run, pm_test_build("tests/crash_late_handler"), NULL, NULL);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGSEGV, "status 0x%x", run.status);
	expect_original_fault(&run, 0x10, "");
	cr_expect_geq(fault_frame(&run.text), 2);
	cr_expect_eq(crash_frame_index(&run.text, &run.text.threads[pm_report_crashed_thread(&run.text)], "main"),
	             fault_frame(&run.text), "the fault is not main's");
	expect_reraise_named(&run, "it read or wrote memory at 0x0000000000000010");
	crash_run_free(&run);
}

/* The same with an SA_SIGINFO handler and a division by zero: the kernel
 * wrote the original siginfo into the signal frame. */
Test(runtimes, fpe_reraised_by_a_later_handler_keeps_the_original_siginfo, .timeout = 120)
{
	crash_run run;
	const char *args[] = { "fpe", NULL };
	crash_run_program(&run, pm_test_build("tests/crash_late_handler"), args, NULL);
	cr_expect(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGFPE, "status 0x%x", run.status);
	const pm_report *twins[] = { &run.text, &run.json };
	for (size_t k = 0; k < 2; k++) {
		const pm_exception *e = &twins[k]->exception;
		int f = fault_frame(twins[k]);
		cr_assert_geq(f, 2);
		cr_expect(e->signal == SIGFPE && e->has_si_code && e->si_code == FPE_INTDIV, "%d %d", e->signal,
		          e->si_code);
		cr_expect(e->has_address && e->address == twins[k]->threads[pm_report_crashed_thread(twins[k])].frames[f].address,
		          "address 0x%llx", (unsigned long long)e->address);
	}
	expect_reraise_named(&run, "FPE_INTDIV");
	crash_run_free(&run);
}

/* The Go program (programs/go_cgo.go).  A missing one fails: CI installs golang-go. */
static const char *
go_program(void)
{
	const char *path = pm_test_build("tests/crash_go_cgo");
	cr_assert(access(path, X_OK) == 0, "%s was not built: go was missing at setup (Makefile PACKAGES has golang-go)",
	          path);
	return path;
}

/* C code called from Go faults.  postmortem's handler stays in front of Go's
 * (the preload library's sigaction), reports, then calls Go's, which prints
 * Go's crash output and exits 2, as without postmortem.  Go's threads answer
 * the freeze: none is listed without its stack or a reason. */
Test(runtimes, go_cgo_fault_in_c_is_reported_and_go_ends_the_process, .timeout = 120)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, go_program(), "c", 2);
	cr_expect(strstr(out, "fatal error: unexpected signal during runtime execution\n") != NULL, "%s", out);
	cr_expect(strstr(out, "[signal SIGSEGV: segmentation violation code=0x1 addr=0x10 pc=") != NULL, "%s", out);
	cr_expect(strstr(out, "goroutine 1 [syscall]:\n") != NULL, "%s", out);
	cr_assert(run.crash_path && run.json_path, "no report:\n%s", out);
	cr_expect_eq(run.reports, 1);
	cr_expect(strstr(out, run.crash_path) != NULL, "run does not name the report:\n%s", out);
	expect_original_fault(&run, 0x10, NULL);
	const pm_report *twins[] = { &run.text, &run.json };
	for (size_t k = 0; k < 2; k++) {
		const pm_report *r = twins[k];
		int32_t c = pm_report_crashed_thread(r);
		cr_assert(c >= 0 && r->threads[c].frame_count > 0);
		cr_expect(strstr(r->threads[c].frames[0].symbol, "Cfunc_c_fault") != NULL, "frame 0 is %s",
		          r->threads[c].frames[0].symbol);
		/* main, sysmon, the three threads locked in Go, and the runtime's own. */
		cr_expect_geq(r->thread_count, 5);
		for (uint32_t i = 0; i < r->thread_count; i++) {
			const pm_thread *t = &r->threads[i];
			cr_expect(t->frame_count > 0 || (t->note && *t->note), "%s: thread %u (id %llu) is empty",
			          k ? "json" : "crash", i, (unsigned long long)t->id);
		}
	}
	free(out);
	crash_run_free(&run);
}

/* Go code dereferences nil and recovers the panic (net/http does it per
 * request): Go's handler alone sees the fault, no report is written, and
 * the program goes on to exit 0. */
Test(runtimes, go_nil_dereference_recovered_in_go_is_not_a_crash, .timeout = 120)
{
	crash_run run;
	char *out = crash_run_cli_exiting(&run, go_program(), "go", 0);
	cr_expect(strstr(out, "recovered: runtime error: invalid memory address or nil pointer dereference\n") != NULL,
	          "%s", out);
	cr_expect_eq(run.reports, 0, "a recovered Go panic was reported:\n%s", out);
	free(out);
	crash_run_free(&run);
}

/* The library stays C: the throw hook finds libstdc++ at run time, so neither
 * library needs a C++ runtime (a C program loads none). */
Test(runtimes, libraries_need_no_cxx_runtime)
{
	const char *libs[] = { "libpostmortem.so", "reporter/libpostmortem-preload.so" };
	for (size_t i = 0; i < 2; i++) {
		char *cmd, *out;
		cr_assert(asprintf(&cmd, "readelf -d '%s'", pm_test_build("%s", libs[i])) > 0);
		int st = pm_test_run(cmd, &out);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
		cr_expect(strstr(out, "(NEEDED)") != NULL, "%s", out);
		cr_expect(!strstr(out, "libstdc++") && !strstr(out, "libc++") && !strstr(out, "libgcc_s"), "%s", out);
		free(cmd);
		free(out);
	}
}
