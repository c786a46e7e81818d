/*
 * test_torn_kill.c — a crash handler killed by SIGKILL in the middle of
 * writing its report (tests/delivery/kill_in_write.c stops it at the Nth
 * write into pending/, half the buffer out).  The next launch must salvage
 * or quarantine what it left, and never crash on it.  A kill while the
 * minidump is written (after both report files landed) leaves a whole report
 * and a torn hidden .dmp.tmp, which no listing counts.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "crash/crash_util.h"
#include "store_util.h"
#include "util.h"

/* Did the writer die in the minidump: is a .<id>.dmp.tmp in pending/? */
static bool
killed_in_minidump(const char *dir)
{
	DIR *d = opendir(su_path(dir, "pending", ""));
	cr_assert_not_null(d);
	bool found = false;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		size_t n = strlen(e->d_name);
		found |= n > 8 && strcmp(e->d_name + n - 8, ".dmp.tmp") == 0;
	}
	closedir(d);
	return found;
}

/* Kill the writer at every write it makes, until one run finishes unkilled. */
static void
kill_at_every_write(const char *sample)
{
	char preload[4096];
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s", pm_test_build("tests/libpm_kill_in_write.so"));
	int killed = 0;
	for (int n = 1; n < 1000; n++) {
		char at[32];
		snprintf(at, sizeof at, "PM_KILL_AT_WRITE=%d", n);
		const char *env[] = { preload, at, NULL };
		crash_run run;
		crash_run_program_noreport(&run, crash_sample_path(sample), NULL, env);
		bool was_killed = WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGKILL;
		bool in_minidump = was_killed && killed_in_minidump(run.dir);

		pm_store_options opt = { .dir = run.dir };
		pm_store *s = NULL;
		cr_assert_eq(pm_store_open(&s, &opt), PM_OK);
		size_t partial = pm_store_count(s, PM_STATE_PARTIAL);
		size_t pending = pm_store_count(s, PM_STATE_PENDING);
		size_t quarantined = pm_store_count(s, PM_STATE_QUARANTINED);
		cr_expect_eq(pending + partial + quarantined, 1, "%s, write %d: %zu pending, %zu partial, %zu quarantined",
		             sample, n, pending, partial, quarantined);
		if (was_killed && !in_minidump)
			cr_expect_eq(pending, 0, "%s, write %d: a torn report listed whole", sample, n);
		if (in_minidump)
			cr_expect_eq(pending, 1, "%s, write %d: the report was whole before its minidump", sample, n);
		if (partial) {
			const pm_store_entry *e = pm_store_get(s, PM_STATE_PARTIAL, 0);
			pm_report r;
			cr_expect_eq(pm_store_load(s, e->id, &r, NULL), PM_OK, "%s, write %d", sample, n);
			cr_expect_eq(r.exception.signal, SIGSEGV, "%s, write %d: the header and exception were salvaged",
			             sample, n);
			pm_report_free(&r);
		}
		pm_store_close(s);
		crash_run_free(&run);
		if (!was_killed)
			break;
		killed++;
	}
	cr_expect_geq(killed, 2, "%s: the writer made only %d writes", sample, killed);
}

Test(torn_kill, null_deref, .timeout = 300)
{
	kill_at_every_write("null_deref");
}

Test(torn_kill, many_threads, .timeout = 300)
{
	kill_at_every_write("many_threads");
}
