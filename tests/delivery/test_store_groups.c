/*
 * test_store_groups.c — storm control and crash groups in the store
 * (docs/store.md, "Storm control"; delivery/store/store_storm.c): the rule
 * applied before a report is written (pmi_storm_admit, what the system
 * reporter calls with its pending/ descriptor), records that are torn,
 * hostile or in the way, the records' cap, and groups listed through a time
 * window and an app.  Reports are the fixture's, written by the store's own
 * writer, so that 150 of them cost no crash.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "delivery/store/store.h"
#include "fixture_report.h"
#include "store_util.h"
#include "util.h"

/* A fresh reports directory with an empty pending/, on tmpfs where there is one: these tests
 * make thousands of small files, which a disk makes slow (malloc'd path). */
static char *
reports_dir(void)
{
	char *dir = strdup("/dev/shm/pm-groups-XXXXXX");
	if (!mkdtemp(dir)) {
		free(dir);
		return su_reports_dir();
	}
	char pending[4200];
	snprintf(pending, sizeof pending, "%s/pending", dir);
	cr_assert_eq(mkdir(pending, 0700), 0);
	return dir;
}

/* The fixture crash, crashing in `site` (one group per site), carrying its group as the crash
 * handler's twin does. */
static void
model_at(pm_report *r, const char *site)
{
	pm_report_init(r);
	pm_fixture_linux_crash(r);
	int32_t k = pm_report_crashed_thread(r);
	cr_assert_geq(k, 0);
	r->threads[k].frames[0].symbol = pm_report_strdup(r, site);
	char *g = pm_report_alloc(r, PM_SIGNATURE_LEN + 1 + PM_TITLE_MAX, 1);
	pm_report_group(r, g, g + PM_SIGNATURE_LEN + 1);
	r->signature = g;
	r->title = g + PM_SIGNATURE_LEN + 1;
}

static int
pending_fd(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/pending", dir);
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	return fd;
}

static size_t
count_ext(const char *dir, const char *ext)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/pending", dir);
	DIR *d = opendir(path);
	cr_assert_not_null(d);
	size_t n = 0, k = strlen(ext);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		n += e->d_name[0] != '.' && len > k && strcmp(e->d_name + len - k, ext) == 0;
	}
	closedir(d);
	return n;
}

/* Report i of a storm, written when storm control says so: what it said. */
static pm_storm_verdict
crash(const char *dir, int fd, const pm_report *model, size_t i, const pm_storm_policy *p)
{
	int64_t t = 1700000000 + (int64_t)i;
	pm_storm_verdict v = pmi_storm_admit(fd, -1, model->signature, t, "crasher", model->title, p, NULL);
	if (v == PM_STORM_KEEP) {
		char id[32];
		snprintf(id, sizeof id, "R-%04zu", i);
		su_put(dir, model, id, "crasher", t, t - 1, 100 + (int64_t)i, true, true);
		/* File times say which is older, as the crash handler's would. */
		char name[48];
		struct timespec ts[2] = { { .tv_sec = t }, { .tv_sec = t } };
		snprintf(name, sizeof name, "%s.json", id);
		cr_assert_eq(utimensat(AT_FDCWD, su_path(dir, "pending", name), ts, 0), 0);
	}
	return v;
}

static pm_group_record
record_of(const char *dir, const char *sig)
{
	int fd = pending_fd(dir);
	int groups = pmi_groups_open(fd, false);
	cr_assert_geq(groups, 0, "no pending/.groups");
	pm_group_record rec;
	cr_expect(pmi_group_record_read(groups, sig, &rec), "the record of %s does not read whole", sig);
	close(groups);
	close(fd);
	return rec;
}

static pm_store_group
only_group(const char *dir, const pm_store_filter *f)
{
	pm_store_options opt = { .read_only = true };
	pm_store *s = su_open(dir, &opt);
	pm_store_group *g, one = { 0 };
	size_t n;
	cr_assert_eq(pm_store_groups(s, f, &g, &n), PM_OK);
	cr_assert_eq(n, 1, "%zu groups", n);
	one = g[0];
	free(g);
	pm_store_close(s);
	return one;
}

/* What the system reporter will do: 150 crashes of one site, each asked about before it is
 * written.  The first three and the latest three stay; every one is counted. */
Test(store_groups, admit_bounds_a_storm_and_counts_every_crash)
{
	enum { N = 150 };
	char *dir = reports_dir();
	pm_report model;
	model_at(&model, "crash_here");
	int fd = pending_fd(dir);
	pm_storm_policy p = { 3, 3 };
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(crash(dir, fd, &model, i, &p), PM_STORM_KEEP, "crash %zu", i);
	close(fd);
	cr_expect_eq(count_ext(dir, ".json"), 6, "files bounded");
	cr_expect_eq(count_ext(dir, ".crash"), 6);
	static const char *const kept[] = { "R-0000", "R-0001", "R-0002", "R-0147", "R-0148", "R-0149" };
	for (size_t i = 0; i < 6; i++) {
		char name[48];
		snprintf(name, sizeof name, "%s.json", kept[i]);
		cr_expect(su_exists(su_path(dir, "pending", name)), "%s: the first and the latest stay", kept[i]);
	}
	pm_group_record rec = record_of(dir, model.signature);
	cr_expect_eq(rec.dropped, N - 6);
	cr_expect_eq(rec.first, 1700000003);
	cr_expect_eq(rec.last, 1700000146);
	cr_expect_str_eq(rec.title, model.title);
	pm_store_group g = only_group(dir, NULL);
	cr_expect_eq(g.count, N, "count exact");
	cr_expect_eq(g.reports, 6);
	cr_expect_str_eq(g.latest_id, "R-0149");
	cr_expect_eq(g.first_time, 1700000000);
	cr_expect_eq(g.last_time, 1700000149);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* Keeping no latest report, the ones after the first are counted, not written. */
Test(store_groups, admit_counts_what_it_does_not_keep)
{
	char *dir = reports_dir();
	pm_report model;
	model_at(&model, "crash_here");
	int fd = pending_fd(dir);
	pm_storm_policy p = { 2, 0 };
	for (size_t i = 0; i < 10; i++)
		cr_expect_eq(crash(dir, fd, &model, i, &p), i < 2 ? PM_STORM_KEEP : PM_STORM_COUNT, "crash %zu", i);
	close(fd);
	cr_expect_eq(count_ext(dir, ".json"), 2);
	cr_expect_eq(record_of(dir, model.signature).dropped, 8);
	cr_expect_eq(only_group(dir, NULL).count, 10);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* 150 crashes of 150 sites: each its own group, each kept. */
Test(store_groups, admit_keeps_every_distinct_crash)
{
	enum { N = 150 };
	char *dir = reports_dir();
	int fd = pending_fd(dir);
	pm_storm_policy p = { 3, 3 };
	for (size_t i = 0; i < N; i++) {
		pm_report model;
		char site[32];
		snprintf(site, sizeof site, "site_%zu", i);
		model_at(&model, site);
		cr_expect_eq(crash(dir, fd, &model, i, &p), PM_STORM_KEEP);
		pm_report_free(&model);
	}
	close(fd);
	cr_expect_eq(count_ext(dir, ".json"), N);
	pm_store_options opt = { .read_only = true };
	pm_store *s = su_open(dir, &opt);
	pm_store_group *g;
	size_t n;
	cr_assert_eq(pm_store_groups(s, NULL, &g, &n), PM_OK);
	cr_expect_eq(n, N);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(g[i].count, 1);
	free(g);
	pm_store_close(s);
	su_rm(dir);
	free(dir);
}

/* Whatever storm control cannot do, the report is kept: no signature, records that are not
 * the user's own, another process holding their lock. */
Test(store_groups, admit_keeps_when_in_doubt)
{
	char *dir = reports_dir();
	pm_report model;
	model_at(&model, "crash_here");
	int fd = pending_fd(dir);
	pm_storm_policy none = { 0, 0 };
	cr_expect_eq(pmi_storm_admit(fd, -1, "not-a-signature", 1, "a", "t", &none, NULL), PM_STORM_KEEP);
	/* Held by another: waited for a moment, then kept. */
	int groups = pmi_groups_open(fd, true);
	cr_assert_geq(groups, 0);
	int other = openat(fd, ".groups", O_RDONLY | O_DIRECTORY);
	cr_assert_eq(flock(other, LOCK_EX), 0);
	cr_expect_eq(pmi_storm_admit(fd, -1, model.signature, 1, "a", "t", &none, NULL), PM_STORM_KEEP);
	close(other);
	close(groups);
	cr_expect_eq(pmi_storm_admit(fd, -1, model.signature, 1, "a", "t", &none, NULL), PM_STORM_COUNT, "free again");
	/* .groups open to others: not written into. */
	cr_assert_eq(chmod(su_path(dir, "pending", ".groups"), 0777), 0);
	cr_expect_eq(pmi_storm_admit(fd, -1, model.signature, 1, "a", "t", &none, NULL), PM_STORM_KEEP);
	/* A symlink in its place: not followed. */
	char *elsewhere = pm_test_tmpdir();
	char *cmd;
	cr_assert(asprintf(&cmd, "rm -rf '%s'", su_path(dir, "pending", ".groups")) > 0);
	cr_assert_eq(pm_test_run(cmd, NULL), 0);
	free(cmd);
	cr_assert_eq(symlink(elsewhere, su_path(dir, "pending", ".groups")), 0);
	cr_expect_eq(pmi_storm_admit(fd, -1, model.signature, 1, "a", "t", &none, NULL), PM_STORM_KEEP);
	cr_expect_not(su_exists(su_path(elsewhere, "", model.signature)), "nothing written through the link");
	close(fd);
	pm_test_rmdir(elsewhere);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* ---- records that do not read ---------------------------------------------------- */

/* A record's bytes laid beside three reports of its group; what the groups count then. */
static pm_store_group
with_record(const char *dir, const pm_report *model, const char *bytes, size_t len)
{
	for (int i = 0; i < 3; i++) {
		char id[16];
		snprintf(id, sizeof id, "K-%d", i);
		su_put(dir, model, id, "crasher", 1700001000 + i, 1700000999, 10 + i, true, true);
	}
	mkdir(su_path(dir, "pending", ".groups"), 0700);
	char name[64];
	snprintf(name, sizeof name, ".groups/%s", model->signature);
	su_write(su_path(dir, "pending", name), bytes, len);
	return only_group(dir, NULL);
}

Test(store_groups, torn_and_hostile_records_are_rebuilt_from_what_reads)
{
	pm_report model;
	model_at(&model, "crash_here");
	char whole[512];
	int n = snprintf(whole, sizeof whole,
	                 "postmortem-group 1\nsignature %s\ndropped 144\nsent 6\ntold 100\nfirst 1700000000\n"
	                 "last 1700000500\napp crasher\ntitle SIGSEGV in crash_here\n",
	                 model.signature);
	static const struct {
		const char *what;
		const char *text; /* NULL: the whole record cut at `cut` */
		size_t cut;
		uint64_t counted; /* crashes that read of it */
	} cases[] = {
		{ "whole", NULL, 0, 150 },
		{ "torn inside the sent line", NULL, 62, 144 },
		{ "torn inside the dropped line", NULL, 50, 0 },
		{ "empty", "", 0, 0 },
		{ "not a record", "{\"dropped\": 1000000}\n", 0, 0 },
		{ "counts beyond reason", "postmortem-group 1\ndropped 999999999999999999999\nsent -4\n", 0, 0 },
		{ "a line twice", "postmortem-group 1\ndropped 7\ndropped 9000\n", 0, 7 },
		{ "control bytes in the title", "postmortem-group 1\ndropped 5\ntitle \033[2Jgone\n", 0, 5 },
		{ "told more than dropped", "postmortem-group 1\ndropped 5\ntold 50\n", 0, 5 },
		{ "times backwards", "postmortem-group 1\ndropped 5\nfirst 1700000900\nlast 1700000100\n", 0, 5 },
		{ "another group's", "postmortem-group 1\nsignature ffffffffffffffff\ndropped 5\n", 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *dir = reports_dir();
		const char *bytes = cases[i].text ? cases[i].text : whole;
		size_t len = cases[i].text ? strlen(cases[i].text) : cases[i].cut ? cases[i].cut : (size_t)n;
		pm_store_group g = with_record(dir, &model, bytes, len);
		cr_expect_eq(g.count, 3 + cases[i].counted, "%s: counted %llu", cases[i].what,
		             (unsigned long long)g.count);
		/* A store that may write leaves it whole, with what read of it. */
		pm_store *s = su_open(dir, NULL);
		pm_store_close(s);
		pm_group_record rec = record_of(dir, model.signature);
		cr_expect_eq(rec.dropped + rec.sent, cases[i].counted, "%s: rebuilt", cases[i].what);
		cr_expect_leq(rec.told, rec.dropped, "%s", cases[i].what);
		cr_expect(rec.first <= rec.last, "%s", cases[i].what);
		cr_expect_null(strchr(rec.title, '\033'), "%s", cases[i].what);
		cr_expect_eq(only_group(dir, NULL).count, 3 + cases[i].counted, "%s: after", cases[i].what);
		su_rm(dir);
		free(dir);
	}
	pm_report_free(&model);
}

Test(store_groups, records_in_the_way_are_never_followed)
{
	pm_report model;
	model_at(&model, "crash_here");
	/* A symlink under the record's name, to a file of someone else's choosing. */
	char *dir = reports_dir(), *elsewhere = pm_test_tmpdir();
	const char *target = su_path(elsewhere, "", "precious");
	char target_path[4200];
	snprintf(target_path, sizeof target_path, "%s", target);
	su_write(target_path, "postmortem-group 1\ndropped 77\n", 31);
	with_record(dir, &model, "", 0);
	char name[64];
	snprintf(name, sizeof name, ".groups/%s", model.signature);
	char link_path[4200];
	snprintf(link_path, sizeof link_path, "%s", su_path(dir, "pending", name));
	unlink(link_path);
	cr_assert_eq(symlink(target_path, link_path), 0);
	cr_expect_eq(only_group(dir, NULL).count, 3, "not read through the link");
	pm_store_close(su_open(dir, NULL));
	struct stat st;
	cr_assert_eq(lstat(link_path, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "the link replaced by a record of our own");
	size_t len;
	char *kept = pm_test_slurp(target_path, &len);
	cr_expect_str_eq(kept, "postmortem-group 1\ndropped 77\n", "its target untouched");
	free(kept);
	/* A directory under the record's name goes; the record is written in its place. */
	unlink(link_path);
	cr_assert_eq(mkdir(link_path, 0700), 0);
	pm_store_close(su_open(dir, NULL));
	cr_assert_eq(lstat(link_path, &st), 0);
	cr_expect(S_ISREG(st.st_mode));
	su_rm(dir);
	pm_test_rmdir(elsewhere);
	free(dir);
	pm_report_free(&model);
}

/* A thousand and more groups' records: the oldest go beyond the cap. */
Test(store_groups, records_are_capped_oldest_first)
{
	char *dir = reports_dir();
	mkdir(su_path(dir, "pending", ".groups"), 0700);
	for (int i = 0; i < PM_GROUP_RECORDS_MAX + 5; i++) {
		char name[64], text[256];
		snprintf(name, sizeof name, ".groups/%016x", i);
		int n = snprintf(text, sizeof text,
		                 "postmortem-group 1\nsignature %016x\ndropped 1\nsent 0\ntold 0\nfirst %d\nlast %d\n", i,
		                 1700000000 + i, 1700000000 + i);
		su_write(su_path(dir, "pending", name), text, (size_t)n);
	}
	pm_store_close(su_open(dir, NULL));
	cr_expect_not(su_exists(su_path(dir, "pending", ".groups/0000000000000004")), "among the oldest");
	cr_expect(su_exists(su_path(dir, "pending", ".groups/0000000000000005")));
	pm_store *s = su_open(dir, &(pm_store_options){ .read_only = true });
	pm_store_group *g;
	size_t n;
	cr_assert_eq(pm_store_groups(s, NULL, &g, &n), PM_OK);
	cr_expect_eq(n, PM_GROUP_RECORDS_MAX);
	free(g);
	pm_store_close(s);
	su_rm(dir);
	free(dir);
}

/* ---- a time window, an app -------------------------------------------------------- */

Test(store_groups, windows_and_apps)
{
	char *dir = reports_dir();
	pm_report model;
	model_at(&model, "crash_here");
	for (int i = 0; i < 4; i++) {
		char id[16];
		snprintf(id, sizeof id, "W-%d", i);
		su_put(dir, &model, id, i == 3 ? "other" : "crasher", 1700000000 + 1000 * i, 1699999999, 10 + i, true,
		       true);
	}
	/* Ten more dropped between 1700000500 and 1700001500. */
	mkdir(su_path(dir, "pending", ".groups"), 0700);
	char name[64], text[256];
	snprintf(name, sizeof name, ".groups/%s", model.signature);
	int n = snprintf(text, sizeof text,
	                 "postmortem-group 1\nsignature %s\ndropped 10\nsent 0\ntold 0\nfirst 1700000500\n"
	                 "last 1700001500\napp crasher\n",
	                 model.signature);
	su_write(su_path(dir, "pending", name), text, (size_t)n);
	pm_store_group g = only_group(dir, NULL);
	cr_expect_eq(g.count, 14);
	cr_expect_str_eq(g.apps, "crasher, other");
	cr_expect_str_eq(g.latest_id, "W-3");
	cr_expect(g.count_exact);
	/* The whole span of the dropped inside: exact. */
	g = only_group(dir, &(pm_store_filter){ .since = 1700000000, .until = 1700002000 });
	cr_expect_eq(g.count, 13);
	cr_expect(g.count_exact);
	cr_expect_str_eq(g.latest_id, "W-2");
	/* A bound inside that span: counted, and said to be so. */
	g = only_group(dir, &(pm_store_filter){ .since = 1700001000 });
	cr_expect_eq(g.count, 13);
	cr_expect_not(g.count_exact);
	g = only_group(dir, &(pm_store_filter){ .app = "other" });
	cr_expect_eq(g.count, 1);
	cr_expect_str_eq(g.apps, "other");
	/* Outside everything: no group. */
	pm_store *s = su_open(dir, &(pm_store_options){ .read_only = true });
	pm_store_group *none;
	size_t count;
	cr_assert_eq(pm_store_groups(s, &(pm_store_filter){ .since = 1800000000 }, &none, &count), PM_OK);
	cr_expect_eq(count, 0);
	cr_expect_null(none);
	pm_store_close(s);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}
