/*
 * test_store_torn.c — the store over damaged reports directories: real
 * reports cut, stripped, replaced by garbage, symlinks and directories.
 * The store must salvage what reads, quarantine what does not, wait for a
 * writer that is still alive, never follow a link and never crash.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_util.h"
#include "util.h"

/* A whole report as the crash handler left it. */
Test(store_torn, whole_report_is_pending)
{
	pm_report model;
	su_real_report(&model, NULL, NULL, NULL, NULL);
	char *dir = su_reports_dir();
	su_put(dir, &model, "WHOLE", "app", 1000, 990, 1, true, true);
	pm_store *s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PENDING), 1);
	const pm_store_entry *e = pm_store_get(s, PM_STATE_PENDING, 0);
	cr_expect_str_eq(e->id, "WHOLE");
	cr_expect_str_eq(e->app, "app");
	cr_expect_eq(e->time, 1000);
	cr_expect_str_eq(e->exception, "EXC_BAD_ACCESS (SIGSEGV)");
	cr_expect_gt(e->bytes, 0);
	pm_report r;
	cr_assert_eq(pm_store_load(s, "WHOLE", &r, NULL), PM_OK);
	cr_expect(r.complete);
	cr_expect_eq(r.thread_count, model.thread_count);
	pm_report_free(&r);
	/* The subdirectories are created private. */
	cr_expect_eq(su_mode(su_path(dir, "quarantine", "")), 0700);
	cr_expect_eq(su_mode(su_path(dir, "sent", "")), 0700);
	pm_store_close(s);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* The JSON twin torn at many points while its text is whole: every cut is salvaged from the text. */
Test(store_torn, json_cut_anywhere_beside_whole_text)
{
	pm_report model;
	char *crash, *json;
	size_t crash_len, json_len;
	su_real_report(&model, &crash, &crash_len, &json, &json_len);
	char *dir = su_reports_dir();
	/* A cut that leaves off only the trailing newline leaves the JSON whole
	 * (the report's length moves with its pid and paths): the cuts stop at
	 * the closing brace, the last one just before it. */
	size_t brace = json_len;
	while (brace > 0 && json[brace - 1] != '}')
		brace--;
	cr_assert(brace > 0);
	size_t last = brace - 1, cuts = 0;
	for (size_t at = 0; at <= last; at = at < last && at + 97 > last ? last : at + 97, cuts++) {
		char name[64];
		snprintf(name, sizeof name, "CUT-%zu.crash", at);
		su_write(su_path(dir, "pending", name), crash, crash_len);
		su_age(su_path(dir, "pending", name), 120);
		/* Alternate the writer's temporary and a torn file under the final
		 * name; the last cut, only its closing brace off, under the final name. */
		snprintf(name, sizeof name, cuts % 2 && at != last ? ".CUT-%zu.json.tmp" : "CUT-%zu.json", at);
		su_write(su_path(dir, "pending", name), json, at);
		su_age(su_path(dir, "pending", name), 120);
	}
	/* One crash cut many ways: storm control would keep six of them. */
	pm_store_options opt = { .max_pending = 1000, .storm_first = UINT32_MAX };
	pm_store *s = su_open(dir, &opt);
	cr_expect_eq(pm_store_count(s, PM_STATE_QUARANTINED), 0);
	cr_assert_eq(pm_store_count(s, PM_STATE_PARTIAL), cuts);
	for (size_t i = 0; i < cuts; i++) {
		const pm_store_entry *e = pm_store_get(s, PM_STATE_PARTIAL, i);
		pm_report r;
		cr_assert_eq(pm_store_load(s, e->id, &r, NULL), PM_OK, "%s does not load", e->id);
		cr_expect_not(r.complete);
		cr_expect_eq(r.thread_count, model.thread_count);
		cr_expect_str_eq(e->app, model.header.process_name);
		pm_report_free(&r);
		char tmp[80];
		snprintf(tmp, sizeof tmp, ".%s.json.tmp", e->id);
		cr_expect_not(su_exists(su_path(dir, "pending", tmp)), "%s was left behind", tmp);
	}
	pm_store_close(s);
	/* Salvaged once: the next open finds the same partial reports, written whole. */
	s = su_open(dir, &opt);
	cr_expect_eq(pm_store_count(s, PM_STATE_PARTIAL), cuts);
	pm_store_close(s);
	free(crash);
	free(json);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* Only a torn JSON: salvaged from its prefix once the header is in, quarantined before. */
Test(store_torn, json_alone_cut_anywhere)
{
	pm_report model;
	char *json;
	size_t json_len;
	su_real_report(&model, NULL, NULL, &json, &json_len);
	size_t header_end = (size_t)(strstr(json, "\"exception\"") - json);
	char *dir = su_reports_dir();
	size_t cuts = 0;
	for (size_t at = 0; at <= json_len; at += 61, cuts++) {
		char name[64];
		snprintf(name, sizeof name, ".J-%zu.json.tmp", at);
		su_write(su_path(dir, "pending", name), json, at);
		su_age(su_path(dir, "pending", name), 120);
	}
	/* One crash cut many ways: storm control would keep six of them. */
	pm_store_options opt = { .max_pending = 1000, .storm_first = UINT32_MAX };
	pm_store *s = su_open(dir, &opt);
	cr_assert_eq(pm_store_count(s, PM_STATE_PARTIAL) + pm_store_count(s, PM_STATE_QUARANTINED), cuts);
	for (size_t at = 0; at <= json_len; at += 61) {
		char id[32];
		snprintf(id, sizeof id, "J-%zu", at);
		const pm_store_entry *e = su_find(s, id);
		cr_assert(e != NULL, "%s is not listed", id);
		if (at > header_end) {
			cr_expect_eq(e->state, PM_STATE_PARTIAL, "%s: cut after the header, not salvaged", id);
			cr_expect_str_eq(e->app, model.header.process_name);
		}
		if (e->state == PM_STATE_QUARANTINED) {
			cr_expect(e->reason && strstr(e->reason, "torn"), "%s: reason '%s'", id, e->reason);
			continue;
		}
		pm_report r;
		cr_expect_eq(pm_store_load(s, id, &r, NULL), PM_OK, "%s does not load", id);
		pm_report_free(&r);
		/* A text was rendered from what was salvaged. */
		const char *crash_path = NULL;
		cr_expect_eq(pm_store_paths(s, id, &crash_path, NULL), PM_OK);
		cr_expect(crash_path != NULL);
	}
	pm_store_close(s);
	free(json);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* Only the text's temporary, cut anywhere: what reads is partial, the rest quarantined. */
Test(store_torn, text_tmp_cut_anywhere)
{
	pm_report model;
	char *crash;
	size_t crash_len;
	su_real_report(&model, &crash, &crash_len, NULL, NULL);
	size_t process_end = (size_t)(strstr(crash, "\nPath:") - crash);
	char *dir = su_reports_dir();
	size_t cuts = 0;
	for (size_t at = 0; at <= crash_len; at += 53, cuts++) {
		char name[64];
		snprintf(name, sizeof name, ".T-%zu.crash.tmp", at);
		su_write(su_path(dir, "pending", name), crash, at);
		su_age(su_path(dir, "pending", name), 120);
	}
	/* One crash cut many ways: storm control would keep six of them. */
	pm_store_options opt = { .max_pending = 1000, .storm_first = UINT32_MAX };
	pm_store *s = su_open(dir, &opt);
	cr_assert_eq(pm_store_count(s, PM_STATE_PARTIAL) + pm_store_count(s, PM_STATE_QUARANTINED), cuts);
	for (size_t at = 0; at <= crash_len; at += 53) {
		char id[32];
		snprintf(id, sizeof id, "T-%zu", at);
		const pm_store_entry *e = su_find(s, id);
		cr_assert(e != NULL, "%s is not listed", id);
		if (at > process_end) {
			cr_expect_eq(e->state, PM_STATE_PARTIAL, "%s: cut after the Process line, not salvaged", id);
			cr_expect_str_eq(e->app, model.header.process_name);
		}
	}
	pm_store_close(s);
	free(crash);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* A JSON twin without "complete": listed partial and loadable as it is. */
Test(store_torn, json_without_complete_is_partial)
{
	pm_report model;
	char *json;
	size_t json_len;
	su_real_report(&model, NULL, NULL, &json, &json_len);
	char *member = strstr(json, ",\n  \"complete\": true");
	cr_assert(member != NULL, "the twin does not end with complete");
	strcpy(member, "\n}\n");
	char *dir = su_reports_dir();
	su_write(su_path(dir, "pending", "NOCOMPLETE.json"), json, strlen(json));
	pm_store *s = su_open(dir, NULL);
	cr_assert_eq(pm_store_count(s, PM_STATE_PARTIAL), 1);
	pm_report r;
	cr_expect_eq(pm_store_load(s, "NOCOMPLETE", &r, NULL), PM_OK);
	cr_expect_not(r.complete);
	cr_expect_eq(r.thread_count, model.thread_count);
	pm_report_free(&r);
	pm_store_close(s);
	free(json);
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* A text alone: its writer may still be on the twin, until it is known gone. */
Test(store_torn, text_alone_waits_for_a_live_writer)
{
	pm_report model;
	su_real_report(&model, NULL, NULL, NULL, NULL);
	char *dir = su_reports_dir();
	su_put(dir, &model, "LIVE", "app", 1000, 990, getpid(), true, false);
	/* The same, caught while the text itself was being written. */
	su_put(dir, &model, "LIVE2", "app", 1000, 990, getpid(), true, false);
	cr_assert_eq(rename(su_path(dir, "pending", "LIVE2.crash"), su_path(dir, "pending", ".LIVE2.crash.tmp")), 0);
	pm_store *s = su_open(dir, NULL);
	cr_expect_null(su_find(s, "LIVE"), "listed while its writer (this process) is alive");
	cr_expect_null(su_find(s, "LIVE2"), "listed while its writer (this process) is alive");
	pm_store_close(s);
	cr_expect(su_exists(su_path(dir, "pending", "LIVE.crash")));
	cr_expect(su_exists(su_path(dir, "pending", ".LIVE2.crash.tmp")));
	cr_expect_not(su_exists(su_path(dir, "pending", "LIVE.json")));

	/* Untouched for two minutes: the writer is gone whoever it was. */
	su_age(su_path(dir, "pending", "LIVE.crash"), 120);
	su_age(su_path(dir, "pending", ".LIVE2.crash.tmp"), 120);
	s = su_open(dir, NULL);
	cr_expect_eq(pm_store_count(s, PM_STATE_PARTIAL), 2);
	pm_store_close(s);
	cr_expect_eq(su_mode(su_path(dir, "pending", "LIVE.json")), 0600);
	cr_expect_eq(su_mode(su_path(dir, "pending", "LIVE2.json")), 0600);
	cr_expect(su_exists(su_path(dir, "pending", "LIVE2.crash")), "the torn text keeps its report's name");
	cr_expect_not(su_exists(su_path(dir, "pending", ".LIVE2.crash.tmp")));
	pm_report_free(&model);
	su_rm(dir);
	free(dir);
}

/* Garbage, empty files, a 10 MB file and an unreadable temporary: quarantined with a reason. */
Test(store_torn, garbage_is_quarantined)
{
	char *dir = su_reports_dir();
	su_write(su_path(dir, "pending", "GARBAGE.json"), "{\"schema\": 12, [[[", 18);
	su_write(su_path(dir, "pending", "GARBAGE.crash"), "\x01\x02\xff not a report\n", 18);
	su_write(su_path(dir, "pending", "EMPTY.json"), "", 0);
	su_write(su_path(dir, "pending", "EMPTY.crash"), "", 0);
	size_t big = 10u << 20;
	char *noise = malloc(big);
	for (size_t i = 0; i < big; i++)
		noise[i] = (char)(i * 2654435761u >> 13);
	su_write(su_path(dir, "pending", "HUGE.json"), noise, big);
	free(noise);
	su_write(su_path(dir, "pending", ".TMP.crash.tmp"), "\x7f" "ELF", 4);
	su_age(su_path(dir, "pending", ".TMP.crash.tmp"), 120);
	su_write(su_path(dir, "pending", "notes.txt"), "not ours", 8);
	pm_store *s;
	char *log = su_open_logged(&s, dir, NULL);
	cr_expect_eq(pm_store_count(s, PM_STATE_QUARANTINED), 4);
	static const char *const ids[] = { "GARBAGE", "EMPTY", "HUGE", "TMP" };
	for (size_t i = 0; i < 4; i++) {
		const pm_store_entry *e = su_find(s, ids[i]);
		cr_assert(e != NULL, "%s not listed", ids[i]);
		cr_expect_eq(e->state, PM_STATE_QUARANTINED);
		cr_expect(e->reason && *e->reason, "%s has no reason", ids[i]);
		char name[64];
		snprintf(name, sizeof name, "%s.reason", ids[i]);
		cr_expect(su_exists(su_path(dir, "quarantine", name)));
		cr_expect(strstr(log, ids[i]) != NULL, "no log line for %s", ids[i]);
		pm_report r;
		cr_expect_neq(pm_store_load(s, ids[i], &r, NULL), PM_OK);
		pm_report_free(&r);
	}
	cr_expect(su_exists(su_path(dir, "quarantine", "TMP.crash")), "the temporary keeps its report's name");
	cr_expect(su_exists(su_path(dir, "pending", "notes.txt")), "a file not ours was touched");
	pm_store_close(s);
	/* Listed again from quarantine/ the next time, with the reason. */
	s = su_open(dir, NULL);
	cr_expect_eq(pm_store_count(s, PM_STATE_QUARANTINED), 4);
	cr_expect(su_find(s, "EMPTY")->reason != NULL);
	pm_store_close(s);
	free(log);
	su_rm(dir);
	free(dir);
}

/* Symlinks, directories and FIFOs under report names: never followed, opened or blocked on. */
Test(store_torn, odd_files_are_not_followed)
{
	pm_report model;
	su_real_report(&model, NULL, NULL, NULL, NULL);
	char *dir = su_reports_dir();
	char *outside = pm_test_tmpdir();
	char secret[4096];
	snprintf(secret, sizeof secret, "%s/secret.json", outside);
	su_write(secret, "{\"schema\": \"postmortem\"}", 24);
	cr_assert_eq(symlink(secret, su_path(dir, "pending", "LINK.json")), 0);
	su_put(dir, &model, "LINK", "app", 1000, 990, 1, true, false);
	cr_assert_eq(mkdir(su_path(dir, "pending", "DIR.json"), 0700), 0);
	cr_assert_eq(mkfifo(su_path(dir, "pending", "FIFO.crash"), 0600), 0);
	pm_store *s = su_open(dir, NULL);
	static const char *const ids[] = { "LINK", "DIR", "FIFO" };
	for (size_t i = 0; i < 3; i++) {
		const pm_store_entry *e = su_find(s, ids[i]);
		cr_assert(e != NULL, "%s not listed", ids[i]);
		cr_expect_eq(e->state, PM_STATE_QUARANTINED, "%s", ids[i]);
		cr_expect(e->reason && strstr(e->reason, "not a regular file"), "%s: %s", ids[i], e->reason);
	}
	pm_report r;
	cr_expect_neq(pm_store_load(s, "FIFO", &r, NULL), PM_OK);
	pm_report_free(&r);
	pm_store_close(s);
	struct stat st;
	cr_assert_eq(lstat(su_path(dir, "quarantine", "LINK.json"), &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link itself moved, not its target");
	cr_expect(su_exists(secret), "the link's target was touched");
	cr_expect_eq(su_mode(secret), 0600);
	pm_report_free(&model);
	su_rm(dir);
	su_rm(outside);
	free(dir);
	free(outside);
}

/* A store directory that is a symlink is refused, not followed out. */
Test(store_torn, symlinked_subdirectory_is_refused)
{
	char *dir = pm_test_tmpdir();
	char *outside = pm_test_tmpdir();
	char link[4096];
	snprintf(link, sizeof link, "%s/pending", dir);
	cr_assert_eq(symlink(outside, link), 0);
	pm_store_options opt = { .dir = dir };
	pm_store *s = NULL;
	cr_expect_eq(pm_store_open(&s, &opt), PM_E_IO);
	cr_expect_null(s);
	su_rm(dir);
	su_rm(outside);
	free(dir);
	free(outside);
}

/* No reports directory: nothing to do, and nothing created. */
Test(store_torn, missing_directory)
{
	char *parent = pm_test_tmpdir();
	char missing[4096];
	snprintf(missing, sizeof missing, "%s/none", parent);
	pm_store_options opt = { .dir = missing };
	pm_store *s = NULL;
	cr_expect_eq(pm_store_open(&s, &opt), PM_E_NOTFOUND);
	cr_expect_not(su_exists(missing));
	su_rm(parent);
	free(parent);
}

/* read_only: a torn report and a stale temporary are listed, not repaired or
 * removed; missing state directories stay missing; changes are refused. */
Test(store_torn, read_only_looks_without_writing)
{
	pm_report model;
	su_real_report(&model, NULL, NULL, NULL, NULL);
	char *dir = su_reports_dir();
	su_put(dir, &model, "torn", "app", 1700000000, 1699999990, 11, true, false);
	su_age(su_path(dir, "pending", "torn.crash"), 120);
	su_put(dir, &model, "whole", "app", 1700000100, 1700000090, 12, true, true);
	su_write(su_path(dir, "pending", ".whole.json.tmp"), "{", 1);
	su_age(su_path(dir, "pending", ".whole.json.tmp"), 3600);
	pm_report_free(&model);

	pm_store_options opt = { .dir = dir, .read_only = true };
	pm_store *s = NULL;
	cr_assert_eq(pm_store_open(&s, &opt), PM_OK);
	const pm_store_entry *torn = su_find(s, "torn"), *whole = su_find(s, "whole");
	cr_assert(torn && whole);
	cr_expect_eq(torn->state, PM_STATE_PARTIAL);
	cr_expect(torn->reason && strstr(torn->reason, "torn"), "%s", torn->reason ? torn->reason : "(none)");
	cr_expect_eq(whole->state, PM_STATE_PENDING);
	cr_expect_eq(pm_store_mark_sent(s, "whole"), PM_E_INVAL);
	cr_expect_eq(pm_store_quarantine(s, "torn", "no"), PM_E_INVAL);
	cr_expect_eq(pm_store_delete(s, "whole"), PM_E_INVAL);
	pm_store_close(s);
	cr_expect_not(su_exists(su_path(dir, "pending", "torn.json")), "salvaged while read-only");
	cr_expect(su_exists(su_path(dir, "pending", ".whole.json.tmp")), "a temporary removed while read-only");
	cr_expect(su_exists(su_path(dir, "pending", "whole.json")));
	cr_expect_not(su_exists(su_path(dir, "sent", "")), "sent/ created while read-only");
	cr_expect_not(su_exists(su_path(dir, "quarantine", "")), "quarantine/ created while read-only");

	/* The same directory opened to write: salvaged and cleaned, as before. */
	opt.read_only = false;
	cr_assert_eq(pm_store_open(&s, &opt), PM_OK);
	pm_store_close(s);
	cr_expect(su_exists(su_path(dir, "pending", "torn.json")));
	cr_expect_not(su_exists(su_path(dir, "pending", ".whole.json.tmp")));
	su_rm(dir);
	free(dir);
}
