/*
 * test_upload_symbolicate.c — with `symbolicate`, a real crash goes out with
 * file and line for its frames, while the files on disk stay as written.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash_util.h"
#include "http_server.h"
#include "upload_util.h"
#include "util.h"

TestSuite(upload_symbolicate, .timeout = 300);

/* Frames of the crashed thread that name a source file. */
static uint32_t
frames_with_files(const pm_report *r)
{
	int32_t t = pm_report_crashed_thread(r);
	cr_assert_geq(t, 0, "no crashed thread");
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->threads[t].frame_count; i++)
		n += r->threads[t].frames[i].file != NULL;
	return n;
}

Test(upload_symbolicate, frames_go_out_with_source_lines)
{
	crash_run run;
	crash_run_sample(&run, "null_deref", NULL);
	cr_assert_not_null(run.json_path, "the sample left no report");
	cr_assert_eq(frames_with_files(&run.json), 0, "the report was symbolicated at crash time");
	size_t disk_len;
	char *disk = pm_test_slurp(run.json_path, &disk_len);

	http_server *srv = http_server_start((const http_reply[]){ { 0 } });
	pm_upload_options opt = upload_options(http_server_url(srv));
	opt.symbolicate = true;
	pm_store *s = upload_store(run.dir);
	pm_upload_result res;
	cr_assert_eq(pm_upload_pending(s, &opt, &res), PM_OK);
	pm_store_close(s);
	cr_assert_eq(res.sent, 1);

	const http_part *json = http_request_part(http_server_request(srv, 0), "report");
	cr_assert(json && !json->decode_failed);
	cr_expect(json->len != disk_len || memcmp(json->data, disk, disk_len) != 0,
	          "the report went out as it was on disk");
	pm_report sent;
	pm_report_init(&sent);
	pm_read_error err = { 0 };
	cr_assert_eq(pm_read_json(json->data, json->len, &sent, &err), PM_OK, "%s", err.message);
	cr_expect_gt(frames_with_files(&sent), 0, "no frame of the crashed thread has a source file");
	const http_part *text = http_request_part(http_server_request(srv, 0), "crash");
	cr_assert(text && !text->decode_failed);
	cr_expect(strstr(text->data, "null_deref.c") != NULL, "the .crash part names no source line");

	pm_report_free(&sent);
	free(disk);
	http_server_stop(srv);
	crash_run_free(&run);
}
