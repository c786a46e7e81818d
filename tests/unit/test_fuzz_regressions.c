/*
 * test_fuzz_regressions.c — every input a fuzzer ever failed on
 * (fuzz/regressions/) is read again, through the format detector, and what
 * reads is rendered in both formats: none may crash, hang or leak out of
 * bounds (the suite also runs under ASan in the fuzz build).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		static char buf[1 << 20];
		pm_out o;
		pm_out_init_buf(&o, buf, sizeof buf);
		pm_write_text(&r, &o);
		pm_out_init_buf(&o, buf, sizeof buf);
		pm_write_json(&r, &o);
	} else {
		cr_expect(err.message[0] != '\0', "%s: rejected without a message", path);
	}
	pm_report_free(&r);
	free(data);
}

Test(fuzz_regressions, every_saved_input_reads_or_is_rejected_cleanly)
{
	const char *dir = pm_test_source("fuzz/regressions");
	char base[4096];
	snprintf(base, sizeof base, "%s", dir);
	DIR *d = opendir(base);
	cr_assert(d != NULL, "no %s", base);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", base, e->d_name);
		replay(path);
		n++;
	}
	closedir(d);
	cr_log_info("%d fuzz regression inputs replayed", n);
}
