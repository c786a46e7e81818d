/*
 * test_cli.c — `postmortem symbolicate` end to end: crash a program, run the
 * command on its report, read what it wrote.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "symb_util.h"
#include "util.h"

/* Run the CLI with arguments; returns its exit code, *out gets stdout and stderr. */
static int
cli(char **out, const char *args)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' symbolicate %s", pm_test_build("tools/postmortem"), args) > 0);
	int status = pm_test_run(cmd, out);
	free(cmd);
	cr_assert(WIFEXITED(status), "the CLI did not exit normally");
	return WEXITSTATUS(status);
}

static void
read_back(const char *path, pm_report *r)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
	cr_assert_eq(pm_read_report_file(path, r, &err), PM_OK, "%s: line %u: %s", path, err.line, err.message);
}

Test(cli, json_report_gives_json_with_the_inline_chain)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "inline");
	char *out, *dest;
	cr_assert(asprintf(&dest, "%s/out.json", run.dir) > 0);
	char *args;
	cr_assert(asprintf(&args, "'%s' -o '%s'", run.json_path, dest) > 0);
	cr_assert_eq(cli(&out, args), 0, "%s", out);
	pm_report r;
	read_back(dest, &r);
	cr_expect_eq(r.format, PM_FORMAT_JSON, "JSON in, JSON out");
	const pm_thread *t = symb_crashed(&r);
	uint32_t i = symb_frame(t, "inline_level3");
	symb_expect_frame(&t->frames[i], "inline_level3", "programs/symb_c.c", symb_marker_line("symb_c.c", "inline3"),
	                  true);
	cr_expect_gt(t->frames[i].column, 0, "the column survives the JSON twin");
	symb_expect_frame(&t->frames[i + 3], "symb_inlined_host", "programs/symb_c.c",
	                  symb_marker_line("symb_c.c", "inline_host"), false);
	pm_report_free(&r);
	free(args);
	free(dest);
	free(out);
	crash_run_free(&run);
}

Test(cli, crash_text_gives_crash_text)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "segv");
	char *out, *args;
	cr_assert(asprintf(&args, "'%s'", run.crash_path) > 0);
	cr_assert_eq(cli(&out, args), 0, "%s", out);
	char want[128];
	snprintf(want, sizeof want, "symb_c.c:%u)\n", symb_marker_line("symb_c.c", "crash_here"));
	const char *at = strstr(out, want);
	cr_expect(at != NULL, "no '%s' in\n%s", want, out);
	cr_expect(strstr(out, "symb_crash_here + "), "no symb_crash_here frame in\n%s", out);
	cr_expect(strstr(out, "Binary Images:"), "not .crash text:\n%s", out);
	free(args);
	free(out);
	crash_run_free(&run);
}

Test(cli, debug_dir_with_a_build_id_tree)
{
	crash_run run;
	char *dir = pm_test_tmpdir(), *out, *args;
	const char *id = crash_readelf_build_id(symb_program("symb_cpp"));
	symb_sh("cd '%s' && mkdir -p dbg/.build-id/%.2s && objcopy --only-keep-debug '%s' dbg/.build-id/%.2s/%s.debug"
	        " && objcopy --strip-debug '%s' symb_cpp",
	        dir, id, symb_program("symb_cpp"), id, id + 2, symb_program("symb_cpp"));
	char bin[4200];
	snprintf(bin, sizeof bin, "%s/symb_cpp", dir);
	symb_crash(&run, bin, NULL);
	cr_assert(asprintf(&args, "'%s' --debug-dir '%s/dbg' --to crash", run.json_path, dir) > 0);
	cr_assert_eq(cli(&out, args), 0, "%s", out);
	char want[128];
	snprintf(want, sizeof want, "symb_cpp.cpp:%u)\n", symb_marker_line("symb_cpp.cpp", "explode"));
	cr_expect(strstr(out, "ns::Widget::explode(int) + "), "not demangled:\n%s", out);
	cr_expect(strstr(out, want), "no '%s' in\n%s", want, out);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
	free(args);
	free(out);
	crash_run_free(&run);
}

Test(cli, notes_go_to_stderr_and_json)
{
	crash_run run;
	char *dir = pm_test_tmpdir(), *out, *args, *dest;
	symb_sh("objcopy --strip-all '%s' '%s/symb_c'", symb_program("symb_c"), dir);
	char bin[4200];
	snprintf(bin, sizeof bin, "%s/symb_c", dir);
	symb_crash(&run, bin, "segv");
	cr_assert(asprintf(&dest, "%s/out.json", dir) > 0);
	cr_assert(asprintf(&args, "'%s' -o '%s' --to json", run.crash_path, dest) > 0);
	cr_assert_eq(cli(&out, args), 0, "%s", out);
	cr_expect(strstr(out, "postmortem symbolicate: symb_c: no debug file with build id "), "stderr:\n%s", out);
	pm_report r;
	read_back(dest, &r);
	const pm_image *app = symb_app_image(&r);
	cr_assert(app->note, "the JSON keeps no note for the app");
	cr_expect(strstr(app->note, "stripped: no .debug_info in "), "note: %s", app->note);
	pm_report_free(&r);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
	free(dest);
	free(args);
	free(out);
	crash_run_free(&run);
}

Test(cli, usage_and_errors)
{
	char *out;
	cr_expect_eq(cli(&out, "--help"), 0);
	cr_expect(strstr(out, "--debug-dir"), "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "x.json --to xml"), 2, "%s", out);
	free(out);
	cr_expect_eq(cli(&out, ""), 2, "%s", out);
	free(out);
	cr_expect_eq(cli(&out, "/nonexistent/report.json"), 1, "%s", out);
	free(out);
}
