/*
 * test_json_prefix.c — closing torn JSON documents.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "delivery/store/json_prefix.h"
#include "formats/json/json.h"
#include "fixture_report.h"

static void
expect_closed(const char *torn, const char *want)
{
	size_t n = 0;
	char *got = pmi_json_close_prefix(torn, strlen(torn), &n);
	if (!want) {
		cr_expect_null(got, "'%s' gave '%s'", torn, got);
	} else {
		cr_assert(got != NULL, "'%s' gave nothing", torn);
		cr_expect_str_eq(got, want, "'%s'", torn);
		cr_expect_eq(n, strlen(got));
	}
	free(got);
}

Test(json_prefix, cuts)
{
	expect_closed("", NULL);
	expect_closed("garbage", NULL);
	expect_closed("{", "{}\n");
	expect_closed("{\"a\": 1, \"b\"", "{\"a\": 1}\n");
	expect_closed("{\"a\": 1, \"b\":", "{\"a\": 1}\n");
	expect_closed("{\"a\": 12", "{}\n"); /* the number may go on */
	expect_closed("{\"a\": 12,", "{\"a\": 12}\n");
	expect_closed("{\"a\": \"x\\\"y", "{}\n");
	expect_closed("{\"a\": \"x\\\"y\"", "{\"a\": \"x\\\"y\"}\n");
	expect_closed("{\"a\": [1, {\"b\": [", "{\"a\": [1, {\"b\": []}]}\n");
	expect_closed("{\"a\": [1, {\"b\": [ ", "{\"a\": [1, {\"b\": []}]}\n");
	expect_closed("{\"a\": [] , \"b\": {}}", "{\"a\": [] , \"b\": {}}\n");
	expect_closed("{\"a\": \"}]\", \"b\": tr", "{\"a\": \"}]\"}\n");
	expect_closed("{\"a\": 1} trailing", "{\"a\": 1}\n");
	expect_closed("{\"a\": 1,]", "{\"a\": 1}\n");
}

/* Every prefix of a real twin closes into a document cJSON accepts. */
Test(json_prefix, every_prefix_parses)
{
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	static char buf[1 << 20];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	cr_assert_eq(pmi_write_json(&r, &o), PM_OK);
	pm_report_free(&r);
	for (size_t cut = 1; cut <= o.len; cut++) {
		size_t n;
		char *closed = pmi_json_close_prefix(buf, cut, &n);
		cr_assert(closed != NULL, "cut at %zu gave nothing", cut);
		cJSON *doc = cJSON_ParseWithLength(closed, n);
		cr_assert(doc != NULL, "cut at %zu does not parse:\n%s", cut, closed);
		cJSON_Delete(doc);
		free(closed);
	}
}
