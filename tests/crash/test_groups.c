/*
 * test_groups.c — crash groups from real crashes (docs/grouping.md): the
 * signature the crash handler writes into the JSON twin, the one the readers
 * compute from the twin and from the .crash text, and storm control over
 * crash loops (docs/store.md).  Each crash is a child process; the reports
 * directory of a storm is on tmpfs, so that 150 crashes cost their capture,
 * not three fsyncs each.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash_util.h"
#include "formats/group/group.h"
#include "util.h"

typedef struct group_of {
	char signature[PM_SIGNATURE_LEN + 1];
	char title[PM_TITLE_MAX];
} group_of;

/* The group the report carries, after checking that the readers compute the same one
 * from the twin and from the .crash text. */
static group_of
carried(crash_run *run)
{
	group_of g;
	cr_assert_not_null(run->json_path, "no report");
	cr_assert(pmi_group_signature_valid(run->json.signature), "the twin carries no signature");
	cr_assert_not_null(run->json.title);
	snprintf(g.signature, sizeof g.signature, "%s", run->json.signature);
	snprintf(g.title, sizeof g.title, "%s", run->json.title);
	char sig[PM_SIGNATURE_LEN + 1], title[PM_TITLE_MAX];
	pmi_group_compute(&run->json, sig, title);
	cr_expect_str_eq(sig, g.signature, "computed from the twin");
	cr_expect_str_eq(title, g.title, "computed from the twin");
	cr_expect_null(run->text.signature, "the .crash text has no place for it");
	pm_report_group(&run->text, sig, title);
	cr_expect_str_eq(sig, g.signature, "computed from the .crash text");
	cr_expect_str_eq(title, g.title, "computed from the .crash text");
	return g;
}

static group_of
run_sites(crash_run *run, const char *path, const char *a, const char *b)
{
	const char *args[] = { a, b, NULL };
	crash_run_program(run, path, args, NULL);
	return carried(run);
}

static const char *
sites(void)
{
	return pm_test_build("tests/crash_group_sites");
}

/* The app's load address in a report. */
static uint64_t
app_base(const pm_report *r)
{
	for (uint32_t i = 0; i < r->image_count; i++)
		if (r->images[i].is_app)
			return r->images[i].start;
	cr_assert_fail("no app image");
	return 0;
}

/* Where frame 0's function is in its image. */
static uint64_t
site_offset(const pm_report *r)
{
	const pm_thread *t = &r->threads[pm_report_crashed_thread(r)];
	const pm_frame *f = &t->frames[0];
	return f->address - f->symbol_offset - r->images[f->image].start;
}

static bool
aslr_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	int v = 0;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0;
}

Test(groups, same_site_at_any_load_address_and_fault_address, .timeout = 120)
{
	crash_run one, two;
	group_of a = run_sites(&one, sites(), "a", "0");
	group_of b = run_sites(&two, sites(), "a", "64");
	cr_expect_str_eq(a.title, "SIGSEGV in site_a");
	cr_expect_neq(one.json.exception.address, two.json.exception.address, "two fault addresses");
	if (aslr_on())
		cr_expect_neq(app_base(&one.json), app_base(&two.json), "ASLR gave both runs one base");
	cr_expect_str_eq(a.signature, b.signature);
	cr_expect_str_eq(a.title, b.title);
	crash_run_free(&one);
	crash_run_free(&two);
}

Test(groups, a_rebuild_that_moves_every_function_keeps_the_group, .timeout = 120)
{
	crash_run one, two;
	group_of a = run_sites(&one, sites(), "a", "0");
	group_of b = run_sites(&two, pm_test_build("tests/crash/programs/rebuilt/crash_group_sites"), "a", "0");
	cr_expect_neq(site_offset(&one.json), site_offset(&two.json), "the rebuild did not move site_a");
	char id[2 * PM_BUILD_ID_MAX + 1];
	snprintf(id, sizeof id, "%s", crash_image_build_id(crash_find_image(&one.json, "/crash_group_sites")));
	cr_expect_str_neq(id, crash_image_build_id(crash_find_image(&two.json, "/crash_group_sites")),
	                  "two builds, one build id");
	cr_expect_str_eq(a.signature, b.signature);
	cr_expect_str_eq(a.title, b.title);
	crash_run_free(&one);
	crash_run_free(&two);
}

Test(groups, other_sites_and_other_programs_are_other_groups, .timeout = 120)
{
	crash_run one, two, three;
	group_of a = run_sites(&one, sites(), "a", "0");
	group_of b = run_sites(&two, sites(), "b", NULL);
	group_of other = run_sites(&three, pm_test_build("tests/crash_group_other"), NULL, NULL);
	cr_expect_str_eq(b.title, "SIGSEGV in site_b");
	cr_expect_str_eq(other.title, "SIGSEGV in site_a");
	cr_expect_str_neq(a.signature, b.signature);
	cr_expect_str_neq(a.signature, other.signature);
	crash_run_free(&one);
	crash_run_free(&two);
	crash_run_free(&three);
}

/* raise, abort and assert's reporting are passed: the app's frame names the group. */
Test(groups, an_abort_is_titled_by_the_app_frame_that_called_it, .timeout = 120)
{
	crash_run one, two;
	group_of a = run_sites(&one, sites(), "abort", NULL);
	group_of b = run_sites(&two, sites(), "assert", NULL);
	cr_expect_eq(crash_frame_index(&one.json, &one.json.threads[pm_report_crashed_thread(&one.json)], "abort") > 0,
	             true, "abort is not on the stack");
	cr_expect_str_eq(a.title, "SIGABRT in fail_hard");
	cr_expect_str_eq(b.title, "SIGABRT in check_invariant");
	cr_expect_str_neq(a.signature, b.signature);
	crash_run_free(&one);
	crash_run_free(&two);
}

static bool
run_thrower(crash_run *run, const char *kind)
{
	const char *path = pm_test_build("tests/crash_group_throw");
	if (access(path, X_OK) != 0) {
		cr_skip_test("crash_group_throw was not built: g++ is missing (Makefile PACKAGES has it)");
		return false;
	}
	char *preload;
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", pm_test_build("reporter/libpostmortem-preload.so")) > 0);
	const char *env[] = { preload, NULL };
	const char *args[] = { kind, NULL };
	crash_run_program(run, path, args, env);
	free(preload);
	return true;
}

/* The thrown type is part of the group; symbolicated and demangled, the report stays in it. */
Test(groups, cxx_exception_types, .timeout = 120)
{
	crash_run one, two;
	if (!run_thrower(&one, "runtime") || !run_thrower(&two, "logic"))
		return;
	group_of a = carried(&one), b = carried(&two);
	cr_expect_str_eq(a.title, "std::runtime_error in app::load");
	cr_expect_str_eq(b.title, "std::logic_error in app::load");
	cr_expect_str_neq(a.signature, b.signature);
	/* The crash handler read the mangled names; demangled, the readers compute the same. */
	pm_report *r = &one.json;
	r->signature = r->title = NULL;
	cr_assert_eq(pm_demangle_report(r), PM_OK);
	cr_expect_str_eq(r->signature, a.signature, "demangling keeps the group");
	r->signature = r->title = NULL;
	char sig[PM_SIGNATURE_LEN + 1], title[PM_TITLE_MAX];
	pmi_group_compute(r, sig, title);
	cr_expect_str_eq(sig, a.signature, "computed from demangled names");
	cr_expect_str_eq(title, a.title);
	crash_run_free(&one);
	crash_run_free(&two);
}

/* A hang report (the watchdog's): a group of its own kind, titled by the app's frame. */
Test(groups, hang_report, .timeout = 120)
{
	crash_run run;
	const char *args[] = { "kill", NULL };
	crash_run_program(&run, crash_sample_path("hang"), args, NULL);
	group_of g = carried(&run);
	cr_expect_eq(run.json.kind, PM_KIND_HANG);
	cr_expect(strncmp(g.title, "Hang in ", 8) == 0, "%s", g.title);
	cr_expect(strstr(g.title, "block_main_loop") != NULL, "%s", g.title);
	crash_run_free(&run);
}

/* ---- storms ------------------------------------------------------------------------ */

/* A reports directory on tmpfs (malloc'd). */
static char *
shm_dir(void)
{
	char *dir = strdup("/dev/shm/pm-groups-XXXXXX");
	if (!mkdtemp(dir)) {
		free(dir);
		return pm_test_tmpdir();
	}
	return dir;
}

/* Crash `path` with each argument set, n of them, one after the other, into dir. */
static void
crash_into(const char *dir, const char *path, size_t n, void (*args_of)(size_t i, char *a, char *b))
{
	char env_dir[4200];
	snprintf(env_dir, sizeof env_dir, "POSTMORTEM_DIR=%s", dir);
	char *envp[] = { env_dir, "POSTMORTEM_SESSIONS=0", NULL };
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32];
		args_of(i, a, b);
		char *argv[] = { (char *)path, a, b, NULL };
		pid_t pid;
		int status;
		cr_assert_eq(posix_spawn(&pid, path, NULL, NULL, argv, envp), 0);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "crash %zu: status 0x%x", i, status);
	}
}

static void
same_site(size_t i, char *a, char *b)
{
	snprintf(a, 32, "a");
	snprintf(b, 32, "%zu", i % 7); /* fault addresses vary too */
}

static void
site_i(size_t i, char *a, char *b)
{
	snprintf(a, 32, "site");
	snprintf(b, 32, "%zu", i);
}

/* Report sets (.json files) in dir/pending. */
static size_t
report_sets(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/pending", dir);
	DIR *d = opendir(path);
	cr_assert_not_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t k = strlen(e->d_name);
		n += e->d_name[0] != '.' && k > 5 && strcmp(e->d_name + k - 5, ".json") == 0;
	}
	closedir(d);
	return n;
}

static pm_store_group *
groups(const char *dir, bool read_only, const pm_store_options *more, size_t *n)
{
	pm_store_options opt = more ? *more : (pm_store_options){ 0 };
	opt.dir = dir;
	opt.read_only = read_only;
	pm_store *s;
	cr_assert_eq(pm_store_open(&s, &opt), PM_OK);
	pm_store_group *g;
	cr_assert_eq(pm_store_groups(s, NULL, &g, n), PM_OK);
	pm_store_close(s);
	return g;
}

/* What `postmortem list --group --json` says. */
static char *
list_group_json(const char *dir)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "'%s' list --group --json --dir '%s'", pm_test_build("tools/postmortem"), dir) > 0);
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	free(cmd);
	return out;
}

/* 150 crashes of one site: six report sets stay, and every crash is counted. */
Test(groups, storm_of_one_site, .timeout = 300)
{
	enum { N = 150 };
	char *dir = shm_dir();
	crash_into(dir, sites(), N, same_site);
	size_t n;
	pm_store_group *g = groups(dir, true, NULL, &n);
	cr_assert_eq(n, 1, "one site, one group");
	cr_expect_eq(g[0].count, N);
	cr_expect_eq(g[0].reports, N, "looking changes nothing");
	free(g);
	/* The next launch's store (the uploader's) applies storm control. */
	g = groups(dir, false, NULL, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(g[0].count, N, "no crash uncounted");
	cr_expect_eq(g[0].reports, 6, "the first three and the latest three");
	cr_expect_eq(g[0].dropped, N - 6);
	cr_expect(g[0].count_exact);
	cr_expect_str_eq(g[0].title, "SIGSEGV in site_a");
	cr_expect_eq(report_sets(dir), 6, "files bounded");
	free(g);
	char *json = list_group_json(dir);
	cr_expect(strstr(json, "\"count\":\t150") != NULL, "%s", json);
	cr_expect(strstr(json, "\"dropped\":\t144") != NULL, "%s", json);
	free(json);
	/* A second open finds nothing more to drop and the same count. */
	g = groups(dir, false, NULL, &n);
	cr_expect_eq(g[0].count, N);
	cr_expect_eq(report_sets(dir), 6);
	free(g);
	pm_test_rmdir(dir);
}

/* 150 crashes at 150 sites: 150 groups of one, every report kept. */
Test(groups, storm_of_distinct_sites, .timeout = 300)
{
	enum { N = 150 };
	char *dir = shm_dir();
	crash_into(dir, sites(), N, site_i);
	size_t n;
	/* Above the cap of 100 pending reports, which would drop (and count) the oldest 50. */
	pm_store_options opt = { .max_pending = 1000 };
	pm_store_group *g = groups(dir, false, &opt, &n);
	cr_assert_eq(n, N);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(g[i].count, 1, "%s", g[i].title);
		cr_expect_eq(g[i].reports, 1);
	}
	cr_expect_eq(report_sets(dir), N, "each kept");
	free(g);
	pm_test_rmdir(dir);
}

/* A crash loop under `postmortem run` (a shell restarting a program that crashes): run applies storm
 * control once the loop ends, as the next launch would, and says so; every crash is counted. */
Test(groups, a_crash_loop_under_run, .timeout = 300)
{
	enum { N = 20 };
	char *dir = shm_dir(), *cmd, *out;
	cr_assert(asprintf(&cmd, "POSTMORTEM_SESSIONS=0 '%s' run --dir '%s' -- sh -c "
	                         "'i=0; while [ $i -lt %d ]; do \"$0\" a $i; i=$((i + 1)); done; true' '%s' 2>&1",
	                   pm_test_build("tools/postmortem"), dir, N, sites()) > 0);
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	cr_expect(strstr(out, "storm control kept 6 of these 20 reports") != NULL, "run says what it kept:\n%s", out);
	cr_expect_eq(report_sets(dir), 6, "files bounded");
	size_t n;
	pm_store_group *g = groups(dir, true, NULL, &n);
	cr_assert_eq(n, 1, "one site, one group");
	cr_expect_eq(g[0].count, N, "every crash counted");
	cr_expect_eq(g[0].reports, 6);
	free(g);
	free(cmd);
	free(out);
	pm_test_rmdir(dir);
}
