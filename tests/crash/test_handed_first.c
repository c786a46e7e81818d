/*
 * A fault the kernel raises goes first to the handler beside postmortem's
 * (reporter/handler/as_chain.c, docs/runtimes.md): a runtime that resolves it
 * leaves no report; one that gives up on it leaves exactly one, of that
 * fault, and ends as it chose.  The runtime is programs/standin_runtime.c,
 * run under `postmortem run` (its handler recorded by the preload library)
 * and linked (its handler set before pm_install).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "crash/crash_util.h"
#include "util.h"

typedef enum { PRELOADED, LINKED } how;

/* The bound a handler may take (docs/runtimes.md), short for the tests of one that hangs or loops. */
#define TIMEOUT_MS "300"

static void
run_standin(crash_run *run, how h, const char *resolve, const char *giveup, const char *threads)
{
	setenv("POSTMORTEM_HANDLER_TIMEOUT_MS", TIMEOUT_MS, 1);
	if (h == PRELOADED) {
		char *args, *out;
		cr_assert(asprintf(&args, "%s %s %s", resolve, giveup, threads) > 0);
		crash_run_cli(run, pm_test_build("tests/crash_standin_runtime"), args, &out);
		free(out);
		free(args);
		return;
	}
	const char *argv[] = { resolve, giveup, threads, NULL };
	const char *env[] = { "POSTMORTEM_HANDLER_TIMEOUT_MS=" TIMEOUT_MS, NULL };
	crash_run_program_noreport(run, pm_test_build("tests/crash_standin_runtime_linked"), argv, env);
}

/* How the process ended: of signal sig, or exit code (sig 0).  Under `postmortem run`,
 * run's own status says it (128 + the signal). */
static void
expect_end(const crash_run *run, how h, int sig, int code)
{
	int st = run->status;
	if (h == PRELOADED)
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == (sig ? 128 + sig : code), "run's status %#x", st);
	else if (sig)
		cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == sig, "status %#x, not signal %d", st, sig);
	else
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == code, "status %#x, not exit %d", st, code);
}

static void
resolves(how h, const char *resolve)
{
	crash_run run;
	run_standin(&run, h, resolve, "none", "4");
	expect_end(&run, h, 0, 0);
	cr_expect_eq(run.reports, 0, "%d reports of faults the runtime resolved (%s)", run.reports, resolve);
	crash_run_free(&run);
}

/* One report, of the fault at 0x40 in standin_crash, that says which handler gave up and how. */
static void
gives_up(how h, const char *giveup, int sig, int code, const char *words)
{
	/* qemu-user does not show a signal raised while blocked in sigpending,
	 * so the report's mask lets it end the process first (docs/arm64.md). */
	if (h == LINKED && strcmp(giveup, "reraise") == 0 && crash_emulator_threads())
		cr_skip_test("qemu-user: a raise while blocked is not pending to sigpending");
	crash_run run;
	run_standin(&run, h, "context", giveup, "2");
	expect_end(&run, h, sig, code);
	cr_assert_eq(run.reports, 1, "%d reports, not 1", run.reports);
	cr_assert(run.crash_path && run.json_path);
	const pm_report *twins[] = { &run.text, &run.json };
	for (size_t k = 0; k < 2; k++) {
		const pm_exception *e = &twins[k]->exception;
		const char *which = k ? "json" : "crash";
		cr_expect(e->signal == SIGSEGV && e->has_si_code && e->si_code == SEGV_MAPERR, "%s: %d %d", which,
		          e->signal, e->si_code);
		cr_expect(e->has_address && e->address == 0x40, "%s: address %#llx", which,
		          (unsigned long long)e->address);
		const char *d = e->term_description;
		char *want;
		cr_assert(asprintf(&want, "which gave up on it: %s", words) > 0);
		cr_expect(d && strstr(d, "Given first to a signal handler beside postmortem's (crash_standin_runtime") == d &&
		          strlen(d) >= strlen(want) && strcmp(d + strlen(d) - strlen(want), want) == 0,
		          "%s: %s", which, d ? d : "no description");
		free(want);
		int32_t c = pm_report_crashed_thread(twins[k]);
		cr_assert_geq(c, 0);
		const pm_thread *t = &twins[k]->threads[c];
		cr_expect(t->frame_count > 0 && t->frames[0].symbol && strcmp(t->frames[0].symbol, "standin_crash") == 0,
		          "%s: frame 0 is %s", which, t->frame_count ? t->frames[0].symbol : "none");
	}
	crash_run_free(&run);
}

#define RESOLVES(mode)                                                             \
	Test(handed_first, mode##_resolved_under_run_leaves_no_report, .timeout = 120) \
	{                                                                              \
		resolves(PRELOADED, #mode);                                                \
	}                                                                              \
	Test(handed_first, mode##_resolved_linked_leaves_no_report, .timeout = 120)    \
	{                                                                              \
		resolves(LINKED, #mode);                                                   \
	}
RESOLVES(longjmp)
RESOLVES(context)
RESOLVES(setcontext)

#define GIVES_UP(mode, sig, code, words)                                         \
	Test(handed_first, gives_up_by_##mode##_under_run, .timeout = 120)           \
	{                                                                            \
		gives_up(PRELOADED, #mode, sig, code, words);                            \
	}                                                                            \
	Test(handed_first, gives_up_by_##mode##_linked, .timeout = 120)              \
	{                                                                            \
		gives_up(LINKED, #mode, sig, code, words);                               \
	}
GIVES_UP(default, SIGSEGV, 0, "it put the default action back and returned")
GIVES_UP(reraise, SIGSEGV, 0, "it raised SIGSEGV")
GIVES_UP(abort, SIGABRT, 0, "it called abort()")
GIVES_UP(exit, 0, 7, "it called _exit(7)")
GIVES_UP(crash, SIGSEGV, 0, "it faulted itself (SIGSEGV)")
GIVES_UP(hang, SIGSEGV, 0, "it had not returned after " TIMEOUT_MS " ms")
GIVES_UP(loop, SIGSEGV, 0, "it kept returning while the same fault came back, for " TIMEOUT_MS " ms")

/* A handled fault on a thread other than the one that installed postmortem
 * (a JVM's Java threads) proves that thread's pointer sound once, not at
 * every fault (reporter/unwind/as_tls_seen.c): 150 faults on three such
 * threads, counted by strace, with a system call per fault before. */
Test(handed_first, faults_off_the_installing_thread_read_no_memory_each, .timeout = 120)
{
	if (crash_emulator_threads())
		cr_skip_test("qemu-user: strace sees the emulator's system calls");
	char *dir = pm_test_tmpdir(), *cmd, *out;
	cr_assert(asprintf(&cmd, "POSTMORTEM_DIR='%s' strace -f -qq -o '%s/trace' -e trace=process_vm_readv '%s' context none 4 "
	                   "&& echo reads $(grep -c process_vm_readv '%s/trace')", dir, dir,
	                   pm_test_build("tests/crash_standin_runtime_linked"), dir) > 0);
	int st = pm_test_run(cmd, &out);
	const char *counted = strstr(out, "reads ");
	cr_assert(WIFEXITED(st) && strstr(out, "resolved 200") && counted, "status %#x: %s", st, out);
	int reads = atoi(counted + 6);
	cr_expect_lt(reads, 20, "%d memory reads for 150 faults off the installing thread", reads);
	free(out);
	free(cmd);
	pm_test_rmdir(dir);
}
