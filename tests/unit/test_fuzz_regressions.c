/*
 * test_fuzz_regressions.c — every input a fuzzer ever failed on
 * (fuzz/regressions/), and every shared sample and example the fuzzers start
 * from, is read again through the format detector, and what reads gets the
 * fuzzers' own checks (fuzz/fuzz_report.h): it renders, and the round trip
 * through the JSON twin keeps it whole.  So CI's short fuzzing never meets a
 * seed that fails.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_report.h"
#include "postmortem.h"
#include "util.h"

static void
replay(const char *path)
{
	size_t len;
	char *data = pm_test_slurp(path, &len);
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	if (pm_read_report(data, len, &r, &err) == PM_OK) {
		fuzz_render_text(&r);
		const char *where = "";
		cr_expect(fuzz_json_round_trip(&r, &where), "%s: round trip through the JSON twin differs: %s",
		          path, where);
	} else {
		cr_expect(err.message[0] != '\0', "%s: rejected without a message", path);
	}
	pm_report_free(&r);
	free(data);
}

/* Every file of dir (but README.md); how many. */
static int
replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert(d != NULL, "no %s", dir);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		replay(path);
		n++;
	}
	closedir(d);
	return n;
}

Test(fuzz_regressions, every_saved_input_reads_or_is_rejected_cleanly)
{
	int n = replay_dir(pm_test_source("fuzz/regressions"));
	cr_log_info("%d fuzz regression inputs replayed", n);
}

Test(fuzz_regressions, every_fuzzer_seed_passes_the_fuzzers_checks)
{
	int n = replay_dir(pm_test_shared("samples/apple"));
	n += replay_dir(pm_test_shared("docs/examples"));
	n += replay_dir(pm_test_source("sample_crashes/reports"));
	cr_expect(n > 10, "only %d seeds found", n);
}
