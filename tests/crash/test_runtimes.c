/*
 * test_runtimes.c — issue 16: programs in other languages, run unchanged
 * under libpostmortem-preload.so.  A C++ program (g++) that dies of an
 * uncaught exception and a Rust program (rustc, legacy and v0 mangling)
 * that aborts through std: the .crash keeps the names as the symbol tables
 * have them; `show`, `symbolicate` and `explain` print them demangled, and
 * explain's first frame in your code passes the runtime's abort path.
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
run_preloaded(crash_run *run, const char *program)
{
	const char *path = pm_test_build("tests/%s", program);
	if (access(path, X_OK) != 0) {
		cr_skip_test("%s was not built: its compiler is missing (Makefile PACKAGES has it)", program);
		return false;
	}
	char *preload;
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", pm_test_build("delivery/libpostmortem-preload.so")) > 0);
	const char *env[] = { preload, NULL };
	crash_run_program(run, path, NULL, env);
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
	if (!run_preloaded(&run, "crash_cxx_throw"))
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
	if (!run_preloaded(&run, "crash_words_rust_legacy"))
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
	if (!run_preloaded(&run, "crash_words_rust_v0"))
		return;
	expect_readable(&run, "_RNv", "crash_words_rust_v0::app::parse_config");
	crash_run_free(&run);
}
