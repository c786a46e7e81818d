/*
 * test_fuzz_regressions.c — the fuzz targets' own checks (fuzz/checks.h),
 * on every test run: on every input a fuzzer ever failed on
 * (fuzz/regressions/<target>-*, through that target's check), and on every
 * report the fuzzers start from (the shared Apple samples and examples,
 * sample_crashes/reports, the committed minidumps), so CI's short fuzzing never meets a seed that
 * fails.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/checks.h"
#include "postmortem-tools.h"
#include "util.h"

typedef bool check_fn(const uint8_t *data, size_t size, char *why, size_t cap);

#define READER_CHECK(name, reader)                                                  \
	static bool name(const uint8_t *data, size_t size, char *why, size_t cap) \
	{                                                                           \
		return fuzz_check_read(reader, data, size, why, cap);               \
	}
READER_CHECK(check_text, pm_read_text)
READER_CHECK(check_ips, pm_read_ips)
READER_CHECK(check_json, pm_read_json)
READER_CHECK(check_any, pm_read_report)
READER_CHECK(check_minidump, pm_read_minidump)

/* Each target's saved inputs start with its name. */
static const struct {
	const char *prefix;
	check_fn *check;
} targets[] = {
	{ "fuzz_read_text-", check_text },
	{ "fuzz_read_ips-", check_ips },
	{ "fuzz_read_json-", check_json },
	{ "fuzz_read_any-", check_any },
	{ "fuzz_read_minidump-", check_minidump },
	{ "fuzz_store-", fuzz_check_store },
	{ "fuzz_group_record-", fuzz_check_group_record },
	{ "fuzz_upload_answer-", fuzz_check_answer },
	{ "fuzz_macho-", fuzz_check_macho },
	{ "fuzz_table-", fuzz_check_table },
	{ "fuzz_core_report-", fuzz_check_core_report },
	{ "fuzz_core-", fuzz_check_core },
};

static void
replay(const char *path, check_fn *check)
{
	size_t len;
	char *data = pm_test_slurp(path, &len);
	static char why[1 << 17];
	cr_expect(check((const uint8_t *)data, len, why, sizeof why), "%s: %s", path, why);
	free(data);
}

/* Every file of dir (but README.md) through check, or through its target's
 * check when check is NULL; how many. */
static int
replay_dir(const char *dir, check_fn *check)
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
		check_fn *c = check;
		for (size_t i = 0; !c && i < sizeof targets / sizeof targets[0]; i++)
			if (strncmp(e->d_name, targets[i].prefix, strlen(targets[i].prefix)) == 0)
				c = targets[i].check;
		cr_expect(c != NULL, "%s: the name says no fuzz target", path);
		if (c)
			replay(path, c);
		n++;
	}
	closedir(d);
	return n;
}

Test(fuzz_regressions, every_saved_input_passes_its_targets_check)
{
	int n = replay_dir(pm_test_source("fuzz/regressions"), NULL);
	cr_log_info("%d fuzz regression inputs replayed", n);
}

Test(fuzz_regressions, every_fuzzer_seed_passes_the_fuzzers_checks)
{
	int n = replay_dir(pm_test_shared("samples/apple"), check_any);
	n += replay_dir(pm_test_shared("docs/examples"), check_any);
	n += replay_dir(pm_test_source("sample_crashes/reports"), check_any);
	n += replay_dir(pm_test_source("fuzz/corpus/minidump"), check_minidump);
	n += replay_dir(pm_test_source("fuzz/corpus/core"), fuzz_check_core);
	n += replay_dir(pm_test_source("fuzz/corpus/core_report"), fuzz_check_core_report);
	n += replay_dir(pm_test_source("fuzz/corpus/group_record"), fuzz_check_group_record);
	cr_expect(n > 10, "only %d seeds found", n);
}
