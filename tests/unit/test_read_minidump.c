/*
 * test_read_minidump.c — the minidump reader on a small minidump built here
 * field by field (a thread, a module, an exception, names), then on every
 * truncation of it and with every 32-bit field turned hostile: it reads
 * what is there or fails with a message, and never crashes or reads out of
 * bounds (run it under ASan too; fuzz/ does the rest).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "formats/minidump/minidump.h"
#include "postmortem-tools.h"

enum { CAP = 8192, STREAMS = 5 };

typedef struct builder {
	uint8_t b[CAP];
	uint32_t len, streams;
} builder;

static uint32_t
reserve(builder *d, uint32_t n)
{
	uint32_t at = d->len;
	cr_assert(d->len + n <= CAP);
	d->len += n;
	return at;
}

static void
stream(builder *d, uint32_t type, uint32_t at, uint32_t size)
{
	uint8_t *e = d->b + PM_MD_HEADER_SIZE + d->streams++ * PM_MD_DIR_ENTRY_SIZE;
	pm_md_put32(e, type);
	pm_md_put32(e + 4, size);
	pm_md_put32(e + 8, at);
}

static uint32_t
string(builder *d, const char *s)
{
	uint32_t n = (uint32_t)strlen(s), at = reserve(d, 4 + 2 * n + 2);
	pm_md_put32(d->b + at, 2 * n);
	for (uint32_t i = 0; i < n; i++)
		pm_md_put16(d->b + at + 4 + 2 * i, (uint8_t)s[i]);
	return at;
}

static const uint8_t build_id[20] = { 0x89, 0xf5, 0xbd, 0x72, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void
build(builder *d)
{
	memset(d, 0, sizeof *d);
	reserve(d, PM_MD_HEADER_SIZE + STREAMS * PM_MD_DIR_ENTRY_SIZE);
	pm_md_put32(d->b, PM_MD_SIGNATURE);
	pm_md_put32(d->b + 4, PM_MD_VERSION);
	pm_md_put32(d->b + 8, STREAMS);
	pm_md_put32(d->b + 12, PM_MD_HEADER_SIZE);

	uint32_t si = reserve(d, PM_MD_SYSTEM_INFO_SIZE);
	pm_md_put16(d->b + si, PM_MD_CPU_AMD64);
	pm_md_put32(d->b + si + 20, PM_MD_OS_LINUX);
	pm_md_put32(d->b + si + 24, string(d, "Linux 6.1.0 x86_64"));
	stream(d, PM_MD_SYSTEM_INFO, si, PM_MD_SYSTEM_INFO_SIZE);

	uint32_t ctx = reserve(d, PM_MD_CONTEXT_AMD64_SIZE);
	pm_md_put32(d->b + ctx + 48, 0x00100003);
	pm_md_put64(d->b + ctx + 152, 0x7ffd0000); /* rsp */
	pm_md_put64(d->b + ctx + 248, 0x401234);   /* rip */

	uint32_t ex = reserve(d, PM_MD_EXCEPTION_SIZE);
	pm_md_put32(d->b + ex, 1234);
	pm_md_put32(d->b + ex + PM_MD_EXC_CODE, 11);
	pm_md_put32(d->b + ex + PM_MD_EXC_FLAGS, 1);
	pm_md_put64(d->b + ex + PM_MD_EXC_ADDRESS, 0x10);
	pm_md_put32(d->b + ex + PM_MD_EXC_CONTEXT, PM_MD_CONTEXT_AMD64_SIZE);
	pm_md_put32(d->b + ex + PM_MD_EXC_CONTEXT + 4, ctx);
	stream(d, PM_MD_EXCEPTION, ex, PM_MD_EXCEPTION_SIZE);

	uint32_t tl = reserve(d, 4 + PM_MD_THREAD_SIZE);
	pm_md_put32(d->b + tl, 1);
	pm_md_put32(d->b + tl + 4, 1234);
	pm_md_put32(d->b + tl + 4 + PM_MD_THREAD_CONTEXT, PM_MD_CONTEXT_AMD64_SIZE);
	pm_md_put32(d->b + tl + 4 + PM_MD_THREAD_CONTEXT + 4, ctx);
	stream(d, PM_MD_THREAD_LIST, tl, 4 + PM_MD_THREAD_SIZE);

	uint32_t ml = reserve(d, 4 + PM_MD_MODULE_SIZE), m = ml + 4;
	pm_md_put32(d->b + ml, 1);
	pm_md_put64(d->b + m, 0x400000);
	pm_md_put32(d->b + m + 8, 0x10000);
	pm_md_put32(d->b + m + PM_MD_MODULE_NAME, string(d, "/usr/bin/app"));
	uint32_t cv = reserve(d, 4 + sizeof build_id);
	pm_md_put32(d->b + cv, PM_MD_CV_ELF);
	memcpy(d->b + cv + 4, build_id, sizeof build_id);
	pm_md_put32(d->b + m + PM_MD_MODULE_CV, 4 + sizeof build_id);
	pm_md_put32(d->b + m + PM_MD_MODULE_CV + 4, cv);
	stream(d, PM_MD_MODULE_LIST, ml, 4 + PM_MD_MODULE_SIZE);

	uint32_t tn = reserve(d, 4 + PM_MD_THREAD_NAME_SIZE);
	pm_md_put32(d->b + tn, 1);
	pm_md_put32(d->b + tn + 4, 1234);
	pm_md_put64(d->b + tn + 8, string(d, "worker"));
	stream(d, PM_MD_THREAD_NAMES, tn, 4 + PM_MD_THREAD_NAME_SIZE);
}

static pm_err
read_md(const uint8_t *data, size_t len, pm_report *r, pm_read_error *err)
{
	memset(err, 0, sizeof *err);
	pm_report_init(r);
	return pm_read_minidump((const char *)data, len, r, err);
}

Test(read_minidump, reads_what_was_built)
{
	builder d;
	build(&d);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_md(d.b, d.len, &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.format, PM_FORMAT_MINIDUMP);
	cr_expect_eq(r.kind, PM_KIND_CRASH);
	cr_expect_eq(r.os, PM_OS_LINUX);
	cr_expect_str_eq(r.header.os_version, "Linux 6.1.0 x86_64");
	cr_expect_eq(r.exception.signal, 11);
	cr_expect_str_eq(r.exception.signal_name, "SIGSEGV");
	cr_expect_eq(r.exception.si_code, 1);
	cr_expect(r.exception.has_address);
	cr_expect_eq(r.exception.address, 0x10);
	cr_expect_str_eq(r.exception.codes, "SEGV_MAPERR at 0x0000000000000010");
	cr_assert_eq(r.thread_count, 1);
	const pm_thread *t = &r.threads[0];
	cr_expect_eq(t->id, 1234);
	cr_expect(t->crashed);
	cr_expect_eq(r.exception.triggered_thread, 0);
	cr_expect_str_eq(t->name, "worker");
	cr_assert_eq(t->frame_count, 1);
	cr_expect_eq(t->frames[0].address, 0x401234);
	cr_expect_eq(t->frames[0].image, 0);
	cr_assert_not_null(t->regs);
	cr_expect_str_eq(t->regs->reg[7].name, "rsp");
	cr_expect_eq(t->regs->reg[7].value, 0x7ffd0000);
	cr_assert_eq(r.image_count, 1);
	cr_expect_str_eq(r.images[0].path, "/usr/bin/app");
	cr_expect_str_eq(r.images[0].name, "app");
	cr_expect_eq(r.images[0].build_id_len, sizeof build_id);
	cr_expect(memcmp(r.images[0].build_id, build_id, sizeof build_id) == 0);
	cr_expect_str_eq(r.header.process_name, "app");
	pm_report_free(&r);
	/* The detector sends it here too. */
	pm_report_init(&r);
	cr_expect_eq(pm_read_report((const char *)d.b, d.len, &r, &err), PM_OK);
	cr_expect_eq(r.format, PM_FORMAT_MINIDUMP);
	pm_report_free(&r);
}

static void
expect_survives(const uint8_t *data, size_t len, const char *what, size_t where)
{
	pm_report r;
	pm_read_error err;
	pm_err e = read_md(data, len, &r, &err);
	cr_expect(e == PM_OK || e == PM_E_FORMAT || e == PM_E_NOMEM, "%s at %zu: %s", what, where, pm_strerror(e));
	if (e == PM_E_FORMAT)
		cr_expect(err.message[0] != '\0', "%s at %zu: no message", what, where);
	pm_report_free(&r);
}

Test(read_minidump, every_truncation)
{
	builder d;
	build(&d);
	for (size_t n = 0; n < d.len; n++)
		expect_survives(d.b, n, "truncated", n);
	pm_report r;
	pm_read_error err;
	cr_expect_eq(read_md(d.b, 16, &r, &err), PM_E_FORMAT);
	pm_report_free(&r);
}

Test(read_minidump, every_field_hostile)
{
	static const uint32_t hostile[] = { 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xfffffff0u, 1 };
	builder d;
	build(&d);
	for (size_t h = 0; h < sizeof hostile / sizeof hostile[0]; h++)
		for (uint32_t at = 0; at + 4 <= d.len; at += 4) {
			builder bad = d;
			pm_md_put32(bad.b + at, hostile[h]);
			expect_survives(bad.b, bad.len, "hostile field", at);
		}
}

Test(read_minidump, not_a_minidump)
{
	pm_report r;
	pm_read_error err;
	cr_expect_eq(read_md((const uint8_t *)"MDMX0000000000000000000000000000", 32, &r, &err), PM_E_FORMAT);
	cr_expect(strstr(err.message, "MDMP") != NULL, "%s", err.message);
	pm_report_free(&r);
}

/* Every module names one 64 KiB string: decoding stops at the file's budget
 * instead of costing 64 KiB per module. */
Test(read_minidump, shared_long_string_costs_once)
{
	enum { MODULES = 8192, UNITS = 32 * 1024 };
	size_t list = 4 + (size_t)MODULES * PM_MD_MODULE_SIZE, len = 44 + list + 4 + 2 * UNITS;
	uint8_t *b = calloc(1, len);
	pm_md_put32(b, PM_MD_SIGNATURE);
	pm_md_put32(b + 4, PM_MD_VERSION);
	pm_md_put32(b + 8, 1);
	pm_md_put32(b + 12, PM_MD_HEADER_SIZE);
	pm_md_put32(b + 32, PM_MD_MODULE_LIST);
	pm_md_put32(b + 36, (uint32_t)list);
	pm_md_put32(b + 40, 44);
	pm_md_put32(b + 44, MODULES);
	uint32_t str = (uint32_t)(44 + list);
	for (size_t i = 0; i < MODULES; i++)
		pm_md_put32(b + 48 + i * PM_MD_MODULE_SIZE + PM_MD_MODULE_NAME, str);
	pm_md_put32(b + str, 2 * UNITS);
	for (size_t i = 0; i < UNITS; i++)
		pm_md_put16(b + str + 4 + 2 * i, 'a');
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_md(b, len, &r, &err), PM_OK, "%s", err.message);
	cr_assert_eq(r.image_count, MODULES);
	uint32_t named = 0;
	for (uint32_t i = 0; i < r.image_count; i++)
		named += r.images[i].path != NULL;
	cr_expect_eq(named, 16u * 1024 * 1024 / (2 * UNITS), "%u modules got their 64 KiB name", named);
	pm_report_free(&r);
	free(b);
}
