/*
 * test_live.c — live backtraces and snapshots in this very process (each
 * Criterion test runs in its own child, so pm_install here is private).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "postmortem-tools.h"
#include "util.h"

static atomic_int parked_tid;
static atomic_int go_on;
static atomic_int finished;

__attribute__((noinline, noclone)) static void
park_here(void)
{
	atomic_store(&parked_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&go_on)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	__asm__ volatile("" ::: "memory");
}

static void *
parked(void *arg)
{
	(void)arg;
	park_here();
	atomic_store(&finished, 1);
	return NULL;
}

static char *
install_into_tmp(void)
{
	char *dir = pm_test_tmpdir();
	pm_config cfg = { .reports_dir = dir };
	cr_assert_eq(pm_install(&cfg), 0, "pm_install failed");
	return dir;
}

static bool
has_frame(const pm_frame *f, int n, const char *symbol)
{
	for (int i = 0; i < n; i++)
		if (f[i].symbol && strcmp(f[i].symbol, symbol) == 0)
			return true;
	return false;
}

Test(live, backtrace_of_another_thread_names_where_it_is, .timeout = 30)
{
	char *dir = install_into_tmp();
	pthread_t t;
	pthread_create(&t, NULL, parked, NULL);
	while (!atomic_load(&parked_tid))
		usleep(1000);
	pm_frame frames[64];
	int n = pm_backtrace_thread(atomic_load(&parked_tid), frames, 64);
	cr_assert(n > 0, "pm_backtrace_thread failed");
	cr_expect(has_frame(frames, n, "park_here"), "the parked function is not in the backtrace");
	cr_expect(has_frame(frames, n, "parked"));
	cr_expect_eq(frames[0].how, PM_HOW_CONTEXT);
	/* The thread goes on afterwards. */
	atomic_store(&go_on, 1);
	pthread_join(t, NULL);
	cr_expect(atomic_load(&finished));
	pm_uninstall();
	free(dir);
}

__attribute__((noinline, noclone)) static int
own_backtrace(pm_frame *frames, int max)
{
	int n = pm_backtrace_thread((int)syscall(SYS_gettid), frames, (size_t)max);
	__asm__ volatile("" ::: "memory");
	return n;
}

Test(live, backtrace_of_the_calling_thread, .timeout = 30)
{
	char *dir = install_into_tmp();
	pm_frame frames[64];
	int n = own_backtrace(frames, 64);
	cr_assert(n > 0);
	cr_expect(has_frame(frames, n, "own_backtrace"));
	pm_uninstall();
	free(dir);
}

Test(live, backtrace_errors)
{
	pm_frame f[4];
	cr_expect_eq(pm_backtrace_thread(1, f, 4), -1, "must fail before pm_install");
	char *dir = install_into_tmp();
	cr_expect_eq(pm_backtrace_thread(999999999, f, 4), -1);
	cr_expect_eq(pm_backtrace_thread((int)syscall(SYS_gettid), f, 0), -1);
	pm_uninstall();
	free(dir);
}

static char *
only_file(const char *dir, const char *ext)
{
	char pending[4096];
	snprintf(pending, sizeof pending, "%s/pending", dir);
	DIR *d = opendir(pending);
	cr_assert(d);
	char *found = NULL;
	int count = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name), k = strlen(ext);
		if (e->d_name[0] != '.' && n > k && strcmp(e->d_name + n - k, ext) == 0) {
			count++;
			free(found);
			cr_assert(asprintf(&found, "%s/%s", pending, e->d_name) > 0);
		}
	}
	closedir(d);
	cr_assert_eq(count, 1, "expected one %s file, found %d", ext, count);
	return found;
}

Test(live, snapshot_lists_every_thread_and_the_process_goes_on, .timeout = 30)
{
	char *dir = install_into_tmp();
	pthread_t t;
	pthread_create(&t, NULL, parked, NULL);
	while (!atomic_load(&parked_tid))
		usleep(1000);
	cr_assert_eq(pm_snapshot_write("asked by the test"), 0);
	atomic_store(&go_on, 1);
	pthread_join(t, NULL);
	cr_expect(atomic_load(&finished), "the parked thread did not go on");

	char *json = only_file(dir, ".json");
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_assert_eq(pm_read_report_file(json, &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.kind, PM_KIND_SNAPSHOT);
	cr_expect_str_eq(r.exception.note, "SIMULATED (this is NOT a crash)");
	cr_assert_eq(r.exception.asi_count, 1);
	cr_expect_str_eq(r.exception.asi[0], "asked by the test");
	cr_expect_eq(pm_report_crashed_thread(&r), -1, "a snapshot marks no thread as crashed");
	cr_expect_geq(r.thread_count, 2);
	/* Criterion's own thread blocks every signal: it is listed, not captured,
	 * and says why.  Ours must be captured. */
	bool saw_parked = false;
	for (uint32_t i = 0; i < r.thread_count; i++) {
		const pm_thread *th = &r.threads[i];
		bool ours = th->id == (uint64_t)getpid() || th->id == (uint64_t)atomic_load(&parked_tid);
		if (ours)
			cr_expect(th->captured, "thread %u (tid %llu) not captured", i, (unsigned long long)th->id);
		else if (!th->captured)
			cr_expect(th->note != NULL, "thread %u not captured and no note says why", i);
		for (uint32_t k = 0; k < th->frame_count; k++)
			saw_parked |= th->frames[k].symbol && strcmp(th->frames[k].symbol, "park_here") == 0;
	}
	cr_expect(saw_parked, "the parked thread's stack is not in the snapshot");
	cr_expect(r.complete);
	pm_report_free(&r);
	free(json);

	/* Its minidump: both of our threads, no exception (nothing crashed). */
	char *dmp = only_file(dir, ".dmp");
	pm_report_init(&r);
	cr_assert_eq(pm_read_report_file(dmp, &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.kind, PM_KIND_SNAPSHOT);
	cr_expect_eq(pm_report_crashed_thread(&r), -1);
	int ours = 0;
	for (uint32_t i = 0; i < r.thread_count; i++)
		ours += r.threads[i].id == (uint64_t)getpid() || r.threads[i].id == (uint64_t)atomic_load(&parked_tid);
	cr_expect_eq(ours, 2, "the snapshot's minidump lacks our threads");
	pm_report_free(&r);
	free(dmp);

	/* A second snapshot works too: the first let everything go. */
	cr_expect_eq(pm_snapshot_write(NULL), 0);
	pm_uninstall();
	free(dir);
}
