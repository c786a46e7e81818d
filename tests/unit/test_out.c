/* test_out.c — the AS-safe output sink and number formatting. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/model/out.h"

Test(out, formats_numbers)
{
	char b[32];
	cr_expect_eq(pmi_fmt_u64(b, sizeof b, 0), 1);
	cr_expect_str_eq(b, "0");
	pmi_fmt_u64(b, sizeof b, UINT64_MAX);
	cr_expect_str_eq(b, "18446744073709551615");
	pmi_fmt_i64(b, sizeof b, INT64_MIN);
	cr_expect_str_eq(b, "-9223372036854775808");
	pmi_fmt_hex(b, sizeof b, 0xb, 16, false);
	cr_expect_str_eq(b, "000000000000000b");
	pmi_fmt_hex(b, sizeof b, 0xDEADBEEF, 0, true);
	cr_expect_str_eq(b, "DEADBEEF");
	cr_expect_eq(pmi_fmt_u64(b, 3, 12345), 0, "must refuse a buffer that is too small");
}

Test(out, buffer_sink_never_overruns)
{
	char b[8];
	memset(b, 'x', sizeof b);
	pm_out o;
	pmi_out_init_buf(&o, b, 6);
	pmi_out_str(&o, "hello world");
	cr_expect(o.overflow);
	cr_expect_str_eq(b, "hello");
	cr_expect_eq(b[6], 'x');
	cr_expect_eq(o.total, 11);
}

Test(out, padding_never_truncates)
{
	char b[64];
	pm_out o;
	pmi_out_init_buf(&o, b, sizeof b);
	pmi_out_lpad(&o, "abc", 5);
	pmi_out_ch(&o, '|');
	pmi_out_rpad(&o, "abc", 5);
	pmi_out_ch(&o, '|');
	pmi_out_lpad(&o, "abcdefg", 3);
	cr_expect_str_eq(b, "abc  |  abc|abcdefg");
}

/* An fd sink on a fresh temporary file, through the caller's (small) buffer. */
static int
temp_sink(pm_out *o, char *path, char *buf, size_t cap)
{
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	pmi_out_init_fd(o, fd, buf, cap);
	return fd;
}

/* Flushes the sink, then what reached the file (NUL-terminated); removes the file. */
static size_t
read_back(pm_out *o, int fd, const char *path, char *got, size_t cap)
{
	cr_assert(pmi_out_flush(o));
	close(fd);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t n = fread(got, 1, cap - 1, f);
	got[n] = '\0';
	fclose(f);
	unlink(path);
	return n;
}

Test(out, fd_sink_flushes_through_small_buffer)
{
	char path[] = "/tmp/pm-out-XXXXXX", b[4], got[512];
	pm_out o;
	int fd = temp_sink(&o, path, b, sizeof b);
	for (int i = 0; i < 100; i++)
		pmi_out_u64(&o, (uint64_t)i);
	size_t n = read_back(&o, fd, path, got, sizeof got);
	cr_expect_eq(n, 190);
	cr_expect(strncmp(got, "0123456789101112", 16) == 0);
}

Test(out, times_render_like_apple)
{
	char b[64];
	pm_out o;
	/* 2020-03-27 18:06:51.4969 -0700 == 2020-03-28 01:06:51 UTC */
	pm_time t = { .sec = 1585357611, .usec = 496900, .tz_min = -420, .digits = 4, .set = true };
	pmi_out_init_buf(&o, b, sizeof b);
	pmi_out_time(&o, &t);
	cr_expect_str_eq(b, "2020-03-27 18:06:51.4969 -0700");

	pm_time u = { .sec = 0, .usec = 0, .tz_min = 330, .digits = 0, .set = true };
	pmi_out_init_buf(&o, b, sizeof b);
	pmi_out_time(&o, &u);
	cr_expect_str_eq(b, "1970-01-01 05:30:00 +0530");

	pm_time before = { .sec = -1, .usec = 0, .tz_min = 0, .digits = 3, .set = true };
	pmi_out_init_buf(&o, b, sizeof b);
	pmi_out_time(&o, &before);
	cr_expect_str_eq(b, "1969-12-31 23:59:59.000 +0000");
}

/* Each digit-count boundary, decimal and hex, as snprintf writes it: the
 * formatter writes two decimal digits per step and pads hex itself. */
static void
put_numbers(pm_out *o, uint64_t v)
{
	pmi_out_u64(o, v);
	pmi_out_ch(o, ' ');
	pmi_out_hex(o, v, 0);
	pmi_out_ch(o, ' ');
	pmi_out_hex(o, v, 16);
	pmi_out_ch(o, ' ');
	pmi_out_hex(o, v, 20);
	pmi_out_ch(o, ' ');
	pmi_out_i64(o, (int64_t)v);
}

Test(out, numbers_match_snprintf_at_every_length)
{
	char want[96], got[96], buf[96];
	pm_out o;
	uint64_t ten = 1;
	for (unsigned shift = 0; shift < 64; shift++) {
		/* Every power of two and of ten, and the numbers either side. */
		uint64_t base[] = { (uint64_t)1 << shift, UINT64_MAX >> shift, ten };
		ten = shift < 19 ? ten * 10 : 1;
		for (size_t k = 0; k < 3; k++) {
			for (uint64_t d = 0; d < 3; d++) {
				uint64_t v = base[k] - 1 + d;
				snprintf(want, sizeof want, "%llu %llx %016llx %20.20llx %lld", (unsigned long long)v,
				         (unsigned long long)v, (unsigned long long)v, (unsigned long long)v, (long long)v);
				pmi_out_init_buf(&o, got, sizeof got);
				put_numbers(&o, v);
				cr_expect_str_eq(got, want);
				/* Straight into a draining sink's buffer, or a few bytes at a time. */
				for (size_t cap = 1; cap <= sizeof buf; cap += sizeof buf - 1) {
					char path[] = "/tmp/pm-out-XXXXXX";
					int fd = temp_sink(&o, path, buf, cap);
					put_numbers(&o, v);
					read_back(&o, fd, path, got, sizeof got);
					cr_expect_str_eq(got, want);
				}
			}
		}
	}
	for (uint64_t v = 0; v < 100000; v += 7) {
		snprintf(want, sizeof want, "%llu", (unsigned long long)v);
		cr_assert_eq(pmi_fmt_u64(got, sizeof got, v), strlen(want));
		cr_assert_str_eq(got, want);
	}
}

Test(out, repeats_span_flushes)
{
	char path[] = "/tmp/pm-out-XXXXXX", b[5], got[256];
	pm_out o;
	int fd = temp_sink(&o, path, b, sizeof b);
	pmi_out_rep(&o, '-', 3);
	pmi_out_rep(&o, '=', 150);
	pmi_out_ch(&o, '|');
	size_t n = read_back(&o, fd, path, got, sizeof got);
	cr_expect_eq(o.total, 154);
	cr_assert_eq(n, 154);
	cr_expect(strncmp(got, "---===", 6) == 0 && got[152] == '=' && got[153] == '|');
}

/* Eight digits at once (out.c's hex_eight): every digit value in every position, both cases. */
Test(out, hex_matches_snprintf_in_both_cases_at_every_width)
{
	char want[64], got[64];
	for (unsigned digit = 0; digit < 16; digit++) {
		for (unsigned at = 0; at < 16; at++) {
			uint64_t vs[] = { (uint64_t)digit << (4 * at), ~((uint64_t)(15 - digit) << (4 * at)),
			                  0x0123456789abcdefu * (digit + 1) >> at };
			for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) {
				for (unsigned width = 0; width <= 20; width++) {
					for (int upper = 0; upper < 2; upper++) {
						unsigned long long v = vs[k];
						snprintf(want, sizeof want, upper ? "%0*llX" : "%0*llx", (int)width, v);
						cr_assert_eq(pmi_fmt_hex(got, sizeof got, v, width, upper), strlen(want));
						cr_assert_str_eq(got, want);
					}
				}
			}
		}
	}
}
