/*
 * test_debug_id.c — the debug id rule (docs/identifiers.md): build ids of every
 * length, none, Mach-O UUIDs; how the .crash and the JSON twin carry it, and
 * reading reports written before it existed.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "postmortem-tools.h"
#include "formats/text/text.h"
#include "formats/json/json.h"

static void
set_id(pm_image *im, const char *hex)
{
	im->build_id_len = 0;
	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;
		cr_assert_eq(sscanf(hex, "%2x", &v), 1);
		im->build_id[im->build_id_len++] = (uint8_t)v;
	}
}

static const char *
debug_id_hex(const pm_image *im, uint8_t os, bool *had)
{
	static char hex[33];
	uint8_t id[16];
	*had = pm_image_debug_id(im, os, id);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

Test(debug_id, build_ids_of_every_length_and_mach_o_uuids)
{
	static const struct {
		const char *build_id;
		uint8_t os;
		const char *debug_id; /* 32 hex digits */
		bool had;
	} cases[] = {
		/* sha1 (20 bytes): the first 16, first three fields byte-swapped; the rest is dropped. */
		{ "93ac61ec5a8eb1396f9fbd350e3169a558528a40", PM_OS_LINUX, "ec61ac938e5a39b16f9fbd350e3169a5", true },
		/* md5/uuid (16 bytes): all of it, swapped. */
		{ "00112233445566778899aabbccddeeff", PM_OS_LINUX, "33221100554477668899aabbccddeeff", true },
		/* shorter (8 bytes): zero-padded to 16, then swapped. */
		{ "0102030405060708", PM_OS_LINUX, "04030201060508070000000000000000", true },
		/* none: no debug id at all (the first page of .text is not hashed). */
		{ "", PM_OS_LINUX, "00000000000000000000000000000000", false },
		/* a Mach-O UUID is the debug id as it is */
		{ "2d903291397d3d14bfca52c7fb8c5e00", PM_OS_DARWIN, "2d903291397d3d14bfca52c7fb8c5e00", true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pm_image im = { 0 };
		bool had;
		set_id(&im, cases[i].build_id);
		cr_expect_str_eq(debug_id_hex(&im, cases[i].os, &had), cases[i].debug_id, "build id '%s'", cases[i].build_id);
		cr_expect_eq(had, cases[i].had, "build id '%s'", cases[i].build_id);
	}
}

/* A Linux .crash as postmortem writes it, one image line to fill in. */
static void
read_linux_text(const char *image_line, pm_report *r)
{
	char text[2048];
	snprintf(text, sizeof text,
	         "Incident Identifier: 0388026A-B3A7-4904-A2EF-E162DB6AF380\n"
	         "Process:             a [1]\n"
	         "OS Version:          Debian GNU/Linux 12 (bookworm) (Linux 6.1.0)\n"
	         "Report Version:      104\n\n"
	         "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n"
	         "Triggered by Thread:  0\n\n"
	         "Thread 0 Crashed:\n"
	         "0   a                             \t0x0000000000001010 0x1000 + 16\n\n"
	         "Binary Images:\n%s\n\nEOF\n",
	         image_line);
	pm_read_error err = { 0 };
	pm_report_init(r);
	cr_assert_eq(pm_read_text(text, strlen(text), r, &err), PM_OK, "%s", err.message);
	cr_assert_eq(r->os, PM_OS_LINUX);
	cr_assert_eq(r->image_count, 1);
}

static char *
render(const pm_report *r, pm_err (*write)(const pm_report *, pm_out *))
{
	static char buf[1 << 16];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	cr_assert_eq(write(r, &o), PM_OK);
	return buf;
}

/*
 * The .crash carries the debug id; read back, it gives the build id's first 16 bytes
 * (all of a 16-byte one).  A .crash written before debug ids keeps its full build id.
 */
Test(debug_id, crash_text_carries_the_debug_id_and_reads_back_the_build_id)
{
	static const struct {
		const char *id_in_text, *build_id, *id_written;
	} cases[] = {
		{ "33221100554477668899aabbccddeeff", "00112233445566778899aabbccddeeff", "33221100554477668899aabbccddeeff" },
		{ "93ac61ec5a8eb1396f9fbd350e3169a558528a40", "93ac61ec5a8eb1396f9fbd350e3169a558528a40",
		  "ec61ac938e5a39b16f9fbd350e3169a5" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char line[160], hex[2 * PM_BUILD_ID_MAX + 1] = "", want[160];
		snprintf(line, sizeof line, "0x1000 - 0x1fff +a x86_64  <%s> /bin/a", cases[i].id_in_text);
		pm_report r;
		read_linux_text(line, &r);
		for (unsigned k = 0; k < r.images[0].build_id_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", r.images[0].build_id[k]);
		cr_expect_str_eq(hex, cases[i].build_id);
		snprintf(want, sizeof want, "<%s> /bin/a\n", cases[i].id_written);
		cr_expect(strstr(render(&r, pmi_write_text), want), "no %s", want);
		snprintf(want, sizeof want, "\"code_id\": \"%s\"", cases[i].build_id);
		cr_expect(strstr(render(&r, pmi_write_json), want), "no %s", want);
		pm_report_free(&r);
	}
}

Test(debug_id, pseudo_files_get_a_slash_in_the_text_only)
{
	pm_report r;
	read_linux_text("0x1000 - 0x1fff [vdso] x86_64  <00000000000000000000000000000000> /[vdso]", &r);
	cr_expect_str_eq(r.images[0].path, "[vdso]");
	cr_expect_eq(r.images[0].build_id_len, 0);
	cr_expect(strstr(render(&r, pmi_write_text), " [vdso] x86_64  <00000000000000000000000000000000> /[vdso]\n"));
	char *twin = render(&r, pmi_write_json);
	cr_expect(strstr(twin, "\"path\": \"[vdso]\""));
	cr_expect_null(strstr(twin, "debug_id"), "no build id, no debug id");
	cr_expect_null(strstr(twin, "code_id"));
	pm_report_free(&r);

	read_linux_text("0x1000 - 0x1fff a x86_64  <00000000000000000000000000000000> /???", &r);
	cr_expect_null(r.images[0].path);
	pm_report_free(&r);
}

Test(debug_id, twins_written_before_debug_ids_read_their_build_id)
{
	const char *old = "{\"schema\": \"postmortem\", \"schema_version\": 1, \"os\": \"linux\", \"header\": {},"
	                  " \"exception\": {}, \"images\": [{\"start\": 4096, \"size\": 4096, \"name\": \"a\","
	                  " \"build_id\": \"93ac61ec5a8eb1396f9fbd350e3169a558528a40\","
	                  " \"uuid\": \"93ac61ec-5a8e-b139-6f9f-bd350e3169a5\"}], \"complete\": true}\n";
	pm_report r;
	pm_read_error err = { 0 };
	pm_report_init(&r);
	cr_assert_eq(pm_read_json(old, strlen(old), &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.images[0].build_id_len, 20);
	cr_expect_eq(r.images[0].build_id[19], 0x40);
	char *twin = render(&r, pmi_write_json);
	cr_expect(strstr(twin, "\"debug_id\": \"ec61ac93-8e5a-39b1-6f9f-bd350e3169a5\""), "%s", twin);
	pm_report_free(&r);
}
