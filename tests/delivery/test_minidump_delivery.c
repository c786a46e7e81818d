/*
 * test_minidump_delivery.c — a report's <id>.dmp travels with it: the plain
 * upload sends it as "upload_file_minidump", and the store moves, deletes
 * and counts it with the report's other files.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_server.h"
#include "store_util.h"
#include "upload_util.h"
#include "util.h"

TestSuite(minidump_delivery, .timeout = 120);

enum { DMP_LEN = 5000 };

/* Minidump-like bytes, NULs included, beside report id of dir. */
static char *
put_dmp(const char *dir, const char *id)
{
	char *b = malloc(DMP_LEN);
	memcpy(b, "MDMP", 4);
	for (size_t i = 4; i < DMP_LEN; i++)
		b[i] = (char)(i * 7 % 251);
	FILE *f = fopen(upload_path(dir, "pending", id, ".dmp"), "wb");
	cr_assert(f && fwrite(b, 1, DMP_LEN, f) == DMP_LEN && fclose(f) == 0);
	return b;
}

static void
sends_the_minidump(bool gzip)
{
	static const http_reply script[] = { { .status = 200 }, { .status = 200 }, { 0 } };
	char *dir = upload_make_reports(2, 0);
	char *dmp = put_dmp(dir, upload_id(0));
	http_server *srv = http_server_start(script);
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.no_gzip = !gzip;
	pm_store *s = upload_store(dir);
	pm_upload_result res;
	cr_assert_eq(pm_upload_pending(s, &opt, &res), PM_OK);
	pm_store_close(s);
	cr_assert_eq(res.sent, 2);
	cr_assert_eq(http_server_count(srv), 2);
	int with = 0;
	for (size_t i = 0; i < 2; i++) {
		const http_request *r = http_server_request(srv, i);
		const http_part *id = http_request_part(r, "id");
		const http_part *p = http_request_part(r, "upload_file_minidump");
		cr_assert_not_null(id);
		if (strcmp(id->data, upload_id(0)) != 0) {
			cr_expect_null(p, "a report without a minidump sent one");
			continue;
		}
		with++;
		cr_assert_not_null(p, "no minidump part");
		char name[96];
		snprintf(name, sizeof name, "%s.dmp%s", upload_id(0), gzip ? ".gz" : "");
		cr_expect_str_eq(p->filename, name);
		cr_expect_str_eq(p->type, gzip ? "application/gzip" : "application/octet-stream");
		cr_assert(!p->decode_failed);
		cr_assert_eq(p->len, DMP_LEN);
		cr_expect(memcmp(p->data, dmp, DMP_LEN) == 0, "the minidump part differs from the file");
	}
	cr_expect_eq(with, 1);
	cr_expect(!upload_exists(upload_path(dir, "pending", upload_id(0), ".dmp")), "the minidump stayed pending");
	http_server_stop(srv);
	free(dmp);
	upload_remove(dir);
}

Test(minidump_delivery, upload_sends_it_gzipped) { sends_the_minidump(true); }
Test(minidump_delivery, upload_sends_it_plain) { sends_the_minidump(false); }

/* A torn minidump (the handler died writing it) is junk once its writer is surely gone. */
Test(minidump_delivery, stale_torn_minidump_is_removed)
{
	char *dir = upload_make_reports(2, 0);
	char stale[128], fresh[128];
	snprintf(stale, sizeof stale, ".%s.dmp.tmp", upload_id(0));
	snprintf(fresh, sizeof fresh, ".%s.dmp.tmp", upload_id(1));
	su_write(su_path(dir, "pending", stale), "MDMP", 4);
	su_age(su_path(dir, "pending", stale), 120);
	su_write(su_path(dir, "pending", fresh), "MDMP", 4);
	pm_store *s = upload_store(dir);
	cr_expect_eq(pm_store_count(s, PM_STATE_PENDING), 2, "a torn minidump changed its report's state");
	cr_expect_null(pm_store_minidump_path(s, upload_id(0)));
	pm_store_close(s);
	cr_expect(!su_exists(su_path(dir, "pending", stale)), "a stale torn minidump was kept");
	cr_expect(su_exists(su_path(dir, "pending", fresh)), "a torn minidump still being written was removed");
	upload_remove(dir);
}

Test(minidump_delivery, store_counts_moves_and_deletes_it)
{
	char *dir = upload_make_reports(3, 0);
	for (size_t i = 0; i < 3; i++)
		free(put_dmp(dir, upload_id(i)));
	pm_store_options o = { .dir = dir, .keep_sent = true };
	pm_store *s;
	cr_assert_eq(pm_store_open(&s, &o), PM_OK);
	const pm_store_entry *e = pm_store_get(s, PM_STATE_PENDING, 0);
	size_t json_len, text_len;
	free(pm_test_slurp(upload_path(dir, "pending", e->id, ".json"), &json_len));
	free(pm_test_slurp(upload_path(dir, "pending", e->id, ".crash"), &text_len));
	cr_expect_eq(e->bytes, json_len + text_len + DMP_LEN);
	const char *p = pm_store_minidump_path(s, upload_id(0));
	cr_assert_not_null(p);
	cr_expect_str_eq(p, upload_path(dir, "pending", upload_id(0), ".dmp"));

	cr_assert_eq(pm_store_mark_sent(s, upload_id(0)), PM_OK);
	cr_expect(upload_exists(upload_path(dir, "sent", upload_id(0), ".dmp")), "not moved to sent/");
	cr_assert_eq(pm_store_quarantine(s, upload_id(1), "test"), PM_OK);
	cr_expect(upload_exists(upload_path(dir, "quarantine", upload_id(1), ".dmp")), "not moved to quarantine/");
	cr_expect_str_eq(pm_store_minidump_path(s, upload_id(1)), upload_path(dir, "quarantine", upload_id(1), ".dmp"));
	cr_assert_eq(pm_store_delete(s, upload_id(2)), PM_OK);
	cr_expect(!upload_exists(upload_path(dir, "pending", upload_id(2), ".dmp")), "not deleted");
	cr_expect_null(pm_store_minidump_path(s, upload_id(2)));
	pm_store_close(s);
	upload_remove(dir);
}
