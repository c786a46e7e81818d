/*
 * test_store_policy.c — what the store does with whole reports: caps,
 * crash loops, delivery order, quarantine, sent, delete, and memory that
 * stays bounded with a thousand reports.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "store_util.h"
#include "util.h"

static pm_report model;
static char *dir;

static void
setup(void)
{
	su_real_report(&model, NULL, NULL, NULL, NULL);
	dir = su_reports_dir();
}

static void
teardown(void)
{
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

TestSuite(store_policy, .init = setup, .fini = teardown);

/* Reports R-0 .. R-(n-1), one a minute apart, each crashing an hour after launch. */
static void
put_series(const char *prefix, const char *app, int n, int64_t t0)
{
	for (int i = 0; i < n; i++) {
		char id[32];
		snprintf(id, sizeof id, "%s-%d", prefix, i);
		su_put(dir, &model, id, app, t0 + 60 * i, t0 + 60 * i - 3600, 1, true, true);
	}
}

Test(store_policy, oldest_first)
{
	/* Written newest first, so file order and names do not give the answer away. */
	su_put(dir, &model, "C", "app", 3000, 0, 1, true, true);
	su_put(dir, &model, "A", "app", 1000, 0, 1, true, true);
	su_put(dir, &model, "B", "app", 2000, 0, 1, true, true);
	pm_store *s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 3);
	cr_expect_str_eq(pm_store_get(s, PM_STATE_PENDING, 0)->id, "A");
	cr_expect_str_eq(pm_store_get(s, PM_STATE_PENDING, 1)->id, "B");
	cr_expect_str_eq(pm_store_get(s, PM_STATE_PENDING, 2)->id, "C");
	cr_expect_null(pm_store_get(s, PM_STATE_PENDING, 3));
	cr_expect_eq(pm_store_count(s, PM_STATE_SENT), 0);
	pm_store_close(s);
}

Test(store_policy, count_cap_drops_oldest_with_a_log_line)
{
	put_series("R", "app", 5, 100000);
	pm_store_options opt = { .max_pending = 3 };
	pm_store *s;
	char *log = su_open_logged(&s, dir, &opt);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 3);
	cr_expect_str_eq(pm_store_get(s, PM_STATE_PENDING, 0)->id, "R-2");
	cr_expect(strstr(log, "postmortem: dropped report R-0 (5 reports in pending/, over the cap of 3)"), "%s", log);
	cr_expect(strstr(log, "postmortem: dropped report R-1 (4 reports in pending/, over the cap of 3)"), "%s", log);
	cr_expect_null(strstr(log, "R-2"));
	cr_expect_not(su_exists(su_path(dir, "pending", "R-0.json")));
	cr_expect_not(su_exists(su_path(dir, "pending", "R-1.crash")));
	pm_store_close(s);
	free(log);
}

Test(store_policy, byte_cap_drops_oldest)
{
	put_series("R", "app", 4, 100000);
	pm_store *s = su_open(dir, NULL);
	uint64_t one = pm_store_get(s, PM_STATE_PENDING, 0)->bytes;
	pm_store_close(s);
	pm_store_options opt = { .max_bytes = one * 2 + one / 2 };
	char *log = su_open_logged(&s, dir, &opt);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 2);
	cr_expect_str_eq(pm_store_get(s, PM_STATE_PENDING, 0)->id, "R-2");
	cr_expect(strstr(log, "dropped report R-0 (") && strstr(log, "bytes in pending/, over the cap of"), "%s", log);
	cr_expect(strstr(log, "dropped report R-1 ("), "%s", log);
	pm_store_close(s);
	free(log);
}

Test(store_policy, crash_loop_goes_first)
{
	put_series("OLD", "calm", 3, 100000);
	/* Three crashes of "loopy", each 2 s after its launch, the newest reports. */
	for (int i = 0; i < 3; i++) {
		char id[32];
		snprintf(id, sizeof id, "LOOP-%d", i);
		su_put(dir, &model, id, "loopy", 200000 + 30 * i, 200000 + 30 * i - 2, 1, true, true);
	}
	pm_store *s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 6);
	for (size_t i = 0; i < 6; i++) {
		const pm_store_entry *e = pm_store_get(s, PM_STATE_PENDING, i);
		cr_expect_eq(e->crash_loop, i < 3, "%s", e->id);
		cr_expect_eq(strcmp(e->app, i < 3 ? "loopy" : "calm"), 0, "%zu: %s", i, e->id);
	}
	pm_store_close(s);
}

Test(store_policy, no_loop_when_the_newest_crash_was_slow)
{
	su_put(dir, &model, "Q-0", "loopy", 1000, 998, 1, true, true);
	su_put(dir, &model, "Q-1", "loopy", 2000, 1998, 1, true, true);
	su_put(dir, &model, "Q-2", "loopy", 3000, 2990, 1, true, true);
	su_put(dir, &model, "SLOW", "loopy", 9000, 5000, 1, true, true);
	pm_store *s = su_open(dir, NULL);
	for (size_t i = 0; i < pm_store_count(s, PM_STATE_PENDING); i++)
		cr_expect_not(pm_store_get(s, PM_STATE_PENDING, i)->crash_loop);
	pm_store_close(s);
	/* Two in a row within 5 s make a loop of two; the newest is quick, the next is not. */
	su_put(dir, &model, "SLOW", "loopy", 9000, 8999, 1, true, true);
	pm_store_options opt = { .crash_loop_count = 2, .crash_loop_seconds = 5 };
	s = su_open(dir, &opt);
	cr_expect_not(su_find(s, "SLOW")->crash_loop, "Q-2 crashed 10 s after launch: the run is one long");
	pm_store_close(s);
	opt.crash_loop_seconds = 10;
	s = su_open(dir, &opt);
	for (size_t i = 0; i < pm_store_count(s, PM_STATE_PENDING); i++)
		cr_expect(pm_store_get(s, PM_STATE_PENDING, i)->crash_loop);
	cr_expect_str_eq(pm_store_get(s, PM_STATE_PENDING, 0)->id, "Q-0", "a loop keeps oldest first");
	pm_store_close(s);
}

/* Delivered reports still count: an app whose uploader works must see its loop too. */
Test(store_policy, loop_counts_delivered_crashes)
{
	for (int i = 0; i < 2; i++) {
		char id[32];
		snprintf(id, sizeof id, "GONE-%d", i);
		su_put(dir, &model, id, "loopy", 1000 + 10 * i, 999 + 10 * i, 1, true, true);
	}
	pm_store *s = su_open(dir, NULL);
	cr_expect_eq(pm_store_mark_sent(s, "GONE-0"), PM_OK);
	cr_expect_eq(pm_store_mark_sent(s, "GONE-1"), PM_OK);
	pm_store_close(s);
	su_put(dir, &model, "NEW", "loopy", 2000, 1999, 1, true, true);
	s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 1);
	cr_expect(pm_store_get(s, PM_STATE_PENDING, 0)->crash_loop);
	pm_store_close(s);
}

static const char *
self_name(void)
{
	static char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	cr_assert(n > 0);
	exe[n] = '\0';
	return strrchr(exe, '/') + 1;
}

Test(store_policy, crash_loop_detected_for_this_program)
{
	setenv("POSTMORTEM_DIR", dir, 1);
	const char *me = self_name();
	su_put(dir, &model, "ME-0", me, 1000, 997, 1, true, true);
	su_put(dir, &model, "ME-1", me, 1100, 1095, 1, true, true);
	cr_expect_not(pm_crash_loop_detected(), "two crashes are no loop of three");
	/* Another program's quick crashes are not ours. */
	su_put(dir, &model, "OTHER", "other", 1200, 1199, 1, true, true);
	cr_expect_not(pm_crash_loop_detected());
	/* A torn one counts: its text is enough. */
	su_put(dir, &model, "ME-2", me, 1300, 1291, 1, true, false);
	cr_expect(pm_crash_loop_detected());
}

Test(store_policy, quarantine_keeps_the_reason)
{
	put_series("R", "app", 2, 100000);
	pm_store *s = su_open(dir, NULL);
	cr_expect_eq(pm_store_quarantine(s, "R-0", "413 Payload Too Large\n\x1b[31mred"), PM_OK);
	const pm_store_entry *e = su_find(s, "R-0");
	cr_expect_eq(e->state, PM_STATE_QUARANTINED);
	cr_expect_str_eq(e->reason, "413 Payload Too Large  [31mred");
	/* The listing is a snapshot: R-0 keeps its place in the pending list. */
	cr_expect_eq(pm_store_count(s, PM_STATE_PENDING), 2);
	cr_expect_eq(pm_store_get(s, PM_STATE_PENDING, 0), e);
	pm_store_close(s);
	cr_expect(su_exists(su_path(dir, "quarantine", "R-0.crash")));
	cr_expect(su_exists(su_path(dir, "quarantine", "R-0.json")));
	cr_expect_eq(su_mode(su_path(dir, "quarantine", "R-0.reason")), 0600);
	cr_expect_not(su_exists(su_path(dir, "pending", "R-0.json")));
	s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_QUARANTINED), 1);
	e = pm_store_get(s, PM_STATE_QUARANTINED, 0);
	cr_expect_str_eq(e->reason, "413 Payload Too Large  [31mred");
	cr_expect_str_eq(e->app, "app");
	pm_report r;
	cr_expect_eq(pm_store_load(s, "R-0", &r, NULL), PM_OK);
	pm_report_free(&r);
	cr_expect_eq(pm_store_delete(s, "R-0"), PM_OK);
	cr_expect_not(su_exists(su_path(dir, "quarantine", "R-0.reason")));
	cr_expect_eq(pm_store_delete(s, "R-0"), PM_E_NOTFOUND);
	pm_store_close(s);
}

Test(store_policy, mark_sent_deletes)
{
	put_series("R", "app", 3, 100000);
	pm_store *s = su_open(dir, NULL);
	/* Walking the list while marking: the snapshot does not shift under the loop. */
	for (size_t i = 0; i < pm_store_count(s, PM_STATE_PENDING); i++)
		cr_expect_eq(pm_store_mark_sent(s, pm_store_get(s, PM_STATE_PENDING, i)->id), PM_OK);
	cr_expect_eq(pm_store_get(s, PM_STATE_PENDING, 2)->state, PM_STATE_SENT);
	cr_expect_eq(pm_store_mark_sent(s, "R-0"), PM_E_INVAL, "sent twice");
	pm_store_close(s);
	cr_expect_not(su_exists(su_path(dir, "pending", "R-2.crash")));
	cr_expect_not(su_exists(su_path(dir, "sent", "R-2.crash")));
	s = su_open(dir, NULL);
	cr_expect_eq(pm_store_count(s, PM_STATE_PENDING) + pm_store_count(s, PM_STATE_SENT), 0);
	pm_store_close(s);
}

Test(store_policy, mark_sent_keeps_in_sent)
{
	put_series("R", "app", 2, 100000);
	pm_store_options opt = { .keep_sent = true };
	pm_store *s = su_open(dir, &opt);
	cr_expect_eq(pm_store_mark_sent(s, "R-1"), PM_OK);
	const char *crash = NULL, *json = NULL;
	cr_expect_eq(pm_store_paths(s, "R-1", &crash, &json), PM_OK);
	cr_expect_str_eq(crash, su_path(dir, "sent", "R-1.crash"));
	cr_expect_str_eq(json, su_path(dir, "sent", "R-1.json"));
	pm_store_close(s);
	s = su_open(dir, &opt);
	cr_assert_eq(pm_store_count(s, PM_STATE_SENT), 1);
	cr_expect_str_eq(pm_store_get(s, PM_STATE_SENT, 0)->id, "R-1");
	pm_report r;
	cr_expect_eq(pm_store_load(s, "R-1", &r, NULL), PM_OK);
	cr_expect(r.complete);
	pm_report_free(&r);
	pm_store_close(s);
}

Test(store_policy, unknown_and_hostile_ids)
{
	put_series("R", "app", 1, 100000);
	pm_store *s = su_open(dir, NULL);
	pm_report r;
	static const char *const ids[] = { "NOPE", "../pending/R-0", "R-0/..", ".R-0", "" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		cr_expect_eq(pm_store_load(s, ids[i], &r, NULL), PM_E_NOTFOUND, "'%s'", ids[i]);
		pm_report_free(&r);
		cr_expect_eq(pm_store_paths(s, ids[i], NULL, NULL), PM_E_NOTFOUND);
		cr_expect_eq(pm_store_mark_sent(s, ids[i]), PM_E_NOTFOUND);
		cr_expect_eq(pm_store_quarantine(s, ids[i], "x"), PM_E_NOTFOUND);
		cr_expect_eq(pm_store_delete(s, ids[i]), PM_E_NOTFOUND);
	}
	cr_expect_eq(pm_store_count(NULL, PM_STATE_PENDING), 0);
	cr_expect_eq(pm_store_count(s, (pm_report_state)42), 0);
	pm_store_close(s);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static long
max_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A thousand pending reports: the listing holds entries, not reports. */
Test(store_policy, thousand_reports_in_bounded_memory, .timeout = 300)
{
	enum { N = 1000 };
	if (UNDER_ASAN)
		cr_skip_test("AddressSanitizer keeps freed memory in quarantine: the peak says nothing there");
	put_series("M", "app", N, 100000);
	/* A thousand copies of one crash: storm control off. */
	pm_store_options opt = { .max_pending = 2 * N, .max_bytes = UINT64_MAX, .storm_first = UINT32_MAX };
	long before = max_rss_kb();
	pm_store *s = su_open(dir, &opt);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), N);
	for (size_t i = 0; i < N; i++)
		cr_assert_str_neq(pm_store_get(s, PM_STATE_PENDING, i)->app, "");
	long grew = max_rss_kb() - before;
	uint64_t total = 0;
	for (size_t i = 0; i < N; i++)
		total += pm_store_get(s, PM_STATE_PENDING, i)->bytes;
	pm_store_close(s);
	/* Holding the reports would take more than their files' size; the
	 * entries and one report at a time take a small fraction of it. */
	cr_expect_lt((uint64_t)grew * 1024, total / 4, "peak memory grew by %ld KiB for %" PRIu64 " bytes of reports",
	             grew, total);
}
