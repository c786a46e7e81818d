/*
 * test_faults.c — a crash's fresh pages are populated ahead (issue 14,
 * reporter/capture/as_prefault.h): the crashing thread takes few page faults from
 * the fault to the crash callback.  Counts, not times: before as_prefault.c
 * this program's crashing thread took 25 faults in user mode at one thread
 * and 32 at 17, with it 6 and 8.  What remains: the text and read-only data of
 * libc and libpostmortem a capture reads first, a read of the crash
 * message's page, the symbolizer's tables.  Skipped where the system cannot
 * tell: no perf counter for the thread, or no MADV_POPULATE_WRITE (before
 * Linux 5.14, qemu-user).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash_util.h"
#include "util.h"

static void
count_faults(const char *threads, uint64_t most)
{
	char *dir = pm_test_tmpdir(), *path = NULL, *env = NULL;
	cr_assert(asprintf(&path, "%s/marker", dir) > 0 && asprintf(&env, "MARKER=%s", path) > 0);
	const char *envs[] = { env, NULL }, *args[] = { threads, NULL };
	crash_run run;
	crash_run_program(&run, pm_test_build("tests/crash_%s", "faults"), args, envs);
	cr_expect_eq(run.json.thread_count, (uint32_t)atoi(threads) + crash_emulator_threads());
	size_t len = 0;
	char *bytes = pm_test_slurp(path, &len);
	uint64_t v[2];
	cr_assert(bytes != NULL && len == sizeof v, "the callback wrote %zu bytes, not %zu", len, sizeof v);
	memcpy(v, bytes, sizeof v);
	free(bytes);
	crash_run_free(&run);
	free(env);
	free(path);
	free(dir);
	if (!v[1])
		cr_skip_test("no page-fault counter or no MADV_POPULATE_WRITE here");
	cr_expect_leq(v[0], most, "the crashing thread took %llu page faults (at most %llu expected)",
	              (unsigned long long)v[0], (unsigned long long)most);
}

Test(faults, a_one_thread_crash_takes_few_page_faults, .timeout = 60)
{
	count_faults("1", 12);
}

Test(faults, a_17_thread_crash_takes_few_page_faults, .timeout = 60)
{
	count_faults("17", 16);
}
