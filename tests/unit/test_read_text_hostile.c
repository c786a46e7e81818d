/*
 * test_read_text_hostile.c — pm_read_text on input meant to break it: every
 * truncation of real reports, garbage, NULs, a 10 MB line, absurd numbers,
 * repeated sections, and the inputs the fuzzer (fuzz/fuzz_read_text.c) found.
 * Reading must never crash, hang or read out of bounds; it either succeeds
 * or says PM_E_FORMAT.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"
#include "util.h"

/* Read an exact-size heap copy, so a sanitizer build sees any overrun. */
static pm_err
read_copy(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	char *copy = malloc(len ? len : 1);
	cr_assert_not_null(copy);
	if (len)
		memcpy(copy, data, len);
	pm_report_init(r);
	pm_err rc = pm_read_text(copy, len, r, err);
	free(copy);
	return rc;
}

/* Read, expect OK or a format error, and free. */
static pm_err
survive(const char *data, size_t len)
{
	pm_report r;
	pm_read_error err;
	pm_err rc = read_copy(data, len, &r, &err);
	cr_expect(rc == PM_OK || rc == PM_E_FORMAT, "rc %d for %zu bytes", rc, len);
	pm_report_free(&r);
	return rc;
}

static void
truncate_everywhere(const char *rel)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("%s", rel), &len);
	for (size_t n = 0; n <= len; n++)
		survive(data, n);
	free(data);
}

Test(read_text_hostile, truncated_at_every_byte)
{
	truncate_everywhere("docs/examples/A_ios_classic_sigsegv.crash");
	truncate_everywhere("docs/examples/D_macos_classic_sigsegv.crash");
	truncate_everywhere("docs/examples/E_ios_sigtrap_translated.crash");
	truncate_everywhere("samples/apple/acrp__handcrafted.txt");
}

Test(read_text_hostile, torn_report_is_incomplete)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("docs/examples/A_ios_classic_sigsegv.crash"), &len);
	char *eof = strstr(data, "\nEOF");
	cr_assert_not_null(eof);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_copy(data, (size_t)(eof - data), &r, &err), PM_OK);
	cr_expect(!r.complete);
	cr_expect_eq(r.image_count, 7);
	pm_report_free(&r);
	free(data);
}

/* A small deterministic generator: the same garbage on every run. */
static uint32_t
next_random(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

Test(read_text_hostile, garbage)
{
	uint32_t seed = 12345;
	char buf[4096];
	for (int round = 0; round < 500; round++) {
		size_t n = next_random(&seed) % sizeof buf;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)next_random(&seed);
		survive(buf, n);
	}
	/* Printable garbage built from the report's own vocabulary. */
	static const char *const words[] = {
		"Thread ", "0", "1", " Crashed:", ":", " name:", "0x", "ffff", " + ", "\n", "\t",
		"Binary Images:", " - ", "<", ">", "(", ")", "Exception Type:", "SIG", "EOF",
		"Termination Reason: ", "Namespace ", ", Code ", " crashed with ARM Thread State",
		"x0: ", "esr: ", "Last Exception Backtrace:", "Application Specific Information:",
		"VM Region Info: ", "Kernel Triage:", "Date/Time: ", "2020-01-01 ", "+", "???",
	};
	for (int round = 0; round < 2000; round++) {
		size_t n = 0;
		while (n < sizeof buf - 64) {
			const char *w = words[next_random(&seed) % (sizeof words / sizeof words[0])];
			size_t wl = strlen(w);
			memcpy(buf + n, w, wl);
			n += wl;
			if (next_random(&seed) % 97 == 0)
				break;
		}
		survive(buf, n);
	}
}

Test(read_text_hostile, not_a_report_names_the_line)
{
	pm_report r;
	pm_read_error err;
	static const char prose[] = "\n\nDear diary,\ntoday nothing crashed.\n";
	cr_expect_eq(read_copy(prose, sizeof prose - 1, &r, &err), PM_E_FORMAT);
	cr_expect_eq(err.line, 3, "the first line that is not blank");
	cr_expect(strstr(err.message, "not a crash report") != NULL, "message: %s", err.message);
	pm_report_free(&r);

	cr_expect_eq(read_copy("", 0, &r, &err), PM_E_FORMAT);
	cr_expect_eq(err.line, 0);
	cr_expect(err.message[0] != '\0');
	pm_report_free(&r);

	cr_expect_eq(read_copy("\n \n\t\n", 4, &r, &err), PM_E_FORMAT);
	pm_report_free(&r);

	pm_report_init(&r);
	cr_expect_eq(pm_read_text(NULL, 0, &r, &err), PM_E_FORMAT);
	pm_report_free(&r);
}

Test(read_text_hostile, json_ips_is_not_text)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("samples/apple/macsymbolicator__ios-crash-in-ips-format.ips"), &len);
	pm_report r;
	pm_read_error err;
	cr_expect_eq(read_copy(data, len, &r, &err), PM_E_FORMAT);
	cr_expect(err.line > 1, "the metadata line is skipped, the body is named: %u", err.line);
	pm_report_free(&r);
	free(data);
}

Test(read_text_hostile, too_large)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	/* The size check comes before any byte is read. */
	cr_expect_eq(pm_read_text("x", (size_t)PM_READ_MAX_BYTES + 1, &r, &err), PM_E_LIMIT);
	cr_expect(err.message[0] != '\0');
	pm_report_free(&r);
}

Test(read_text_hostile, nul_bytes_inside_lines)
{
	static const char text[] =
		"Process:             na\0me [12]\n"
		"Exception Type:  EXC_BAD_ACCESS (SIG\0SEGV)\n"
		"Exception Codes: SEGV_\0MAPERR at 0x10\n"
		"Thread 0 name:  wor\0ker\n"
		"Thread 0 Crashed:\n"
		"0   li\0b                           \t0x0000000000001000 sy\0m + 4 (fi\0le.c:3)\n"
		"1   lib\0                           \t0x0000000000002000 0x1000 + 4096\n"
		"\n"
		"Binary Images:\n"
		"0x1000 - 0x2fff li\0b arm64  <00112233445566778899aabbccddeeff> /x\0y\n";
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_copy(text, sizeof text - 1, &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.header.pid, 12);
	cr_assert_eq(r.thread_count, 1);
	cr_expect_eq(r.threads[0].frame_count, 2);
	cr_expect_eq(r.threads[0].frames[0].line, 3);
	cr_expect_eq(r.threads[0].frames[0].image, 0);
	cr_expect_eq(r.image_count, 1);
	cr_expect_eq(r.images[0].build_id_len, 16);
	pm_report_free(&r);
}

/* "<head><n copies of fill><tail>" on the heap. */
static char *
repeat(const char *head, const char *fill, size_t n, const char *tail, size_t *len)
{
	size_t hl = strlen(head), fl = strlen(fill), tl = strlen(tail);
	*len = hl + n * fl + tl;
	char *s = malloc(*len + 1);
	cr_assert_not_null(s);
	memcpy(s, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(s + hl + i * fl, fill, fl);
	memcpy(s + hl + n * fl, tail, tl + 1);
	return s;
}

Test(read_text_hostile, ten_megabyte_lines, .timeout = 120)
{
	static const char *const heads[] = {
		"Exception Type:  SIGSEGV\n",               /* then a 10 MB free-text line */
		"Thread 0:\n0   lib ",                      /* a 10 MB frame image column */
		"Thread 0:\n0   lib 0x1 ",                  /* a 10 MB symbol */
		"Thread 0 name:  ",                         /* a 10 MB thread name */
		"Binary Images:\n0x1 - 0x2 ",               /* a 10 MB image name */
		"Thread 0 crashed with ARM Thread State:\n",
		"Exception Codes: ",
		"Termination Reason: ",
		"Last Exception Backtrace:\n(",
	};
	static const char *const fills[] = { "A", " ", "0", "0x", "x0: 0x1 ", "( ", "Dispatch queue:" };
	for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
		for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
			size_t len;
			char *s = repeat(heads[h], fills[f], (10u << 20) / strlen(fills[f]),
			                 " 0x10 end\nThread 1:\n", &len);
			survive(s, len);
			free(s);
		}
	}
}

Test(read_text_hostile, absurd_numbers)
{
	static const char text[] =
		"Process:             x [99999999999999999999999]\n"
		"Date/Time:           9999-99-99 99:99:99.99999999999 +9999\n"
		"Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n"
		"Exception Codes: 0x1ffffffffffffffff, 0x2\n"
		"Triggered by Thread:  99999999999\n"
		"Termination Reason: Namespace SIGNAL, Code 0x1ffffffffffffffff\n"
		"Thread 99999999999:\n"
		"0   lib                           \t0x1234567890abcdef12 f + 1\n"
		"1   lib                           \t0x10 f + 99999999999999999999999\n"
		"2   lib                           \t0x10 f (a.c:99999999999)\n"
		"Thread 999999999999999999999999999:\n"
		"\n"
		"Thread 99999999999 crashed with ARM Thread State (64-bit):\n"
		"    x0: 0x1ffffffffffffffff   x1: 0x1\n"
		"Binary Images:\n"
		"0x1ffffffffffffffff - 0x2 lib arm64  <00> /x\n"
		"0x10 - 0x1 backwards arm64  <01> /y\n"
		"0x1 - 0xffffffffffffffff huge arm64  <0102030405060708090a0b0c0d0e0f101112131415161718"
		"191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f4041> /z\n";
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_copy(text, sizeof text - 1, &r, &err), PM_OK, "%s", err.message);
	cr_expect_eq(r.header.pid, -1);
	cr_expect(!r.header.time.set);
	cr_expect_eq(r.header.extra_count, 1, "an unreadable date is kept as text");
	cr_expect_eq(r.exception.raw_code_count, 0);
	cr_expect_eq(r.exception.triggered_thread, -1);
	cr_expect(!r.exception.has_term_code);
	cr_assert_eq(r.thread_count, 1, "a number past 64 bits is no thread header");
	cr_assert_eq(r.threads[0].frame_count, 2, "an address past 64 bits is no frame");
	cr_expect(!r.threads[0].frames[0].has_offset);
	cr_expect_null(r.threads[0].frames[1].file, "a line past 32 bits is no source location");
	cr_expect_str_eq(r.threads[0].frames[1].symbol, "f (a.c:99999999999)");
	cr_assert_not_null(r.threads[0].regs);
	cr_expect_eq(r.threads[0].regs->count, 0);
	cr_assert_eq(r.image_count, 1);
	cr_expect_eq(r.images[0].build_id_len, 0, "a build id longer than 64 bytes is dropped");
	pm_report_free(&r);
}

Test(read_text_hostile, limits_truncate)
{
	size_t len;
	char *s = repeat("Exception Type:  SIGSEGV\n", "Thread 7:\n0 a 0x1\n", 100000, "", &len);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_copy(s, len, &r, &err), PM_OK);
	cr_expect(r.threads_truncated);
	cr_expect(r.thread_count > 0 && r.thread_count < 100000);
	pm_report_free(&r);
	free(s);

	s = repeat("Thread 0 Crashed:\n", "0 a 0x1 f + 1\n", 100000, "", &len);
	cr_assert_eq(read_copy(s, len, &r, &err), PM_OK);
	cr_assert_eq(r.thread_count, 1);
	cr_expect(r.threads[0].frames_truncated);
	cr_expect(r.threads[0].frame_count > 0 && r.threads[0].frame_count < 100000);
	pm_report_free(&r);
	free(s);

	s = repeat("Binary Images:\n", "0x1000 - 0x1fff a arm64  <01> /a\n", 100000, "", &len);
	cr_assert_eq(read_copy(s, len, &r, &err), PM_OK);
	cr_expect(r.images_truncated);
	cr_expect(r.image_count > 0 && r.image_count < 100000);
	pm_report_free(&r);
	free(s);

	s = repeat("Thread 0:\n", "Thread 0 crashed with ARM Thread State (64-bit):\n x0: 0x1\n", 100000,
	           "", &len);
	cr_assert_eq(read_copy(s, len, &r, &err), PM_OK);
	cr_assert_not_null(r.threads[0].regs);
	cr_expect_eq(r.threads[0].regs->count, 1);
	pm_report_free(&r);
	free(s);
}

Test(read_text_hostile, repeated_and_gapped_sections)
{
	static const char text[] =
		"Exception Type:  EXC_CRASH (SIGABRT)\n"
		"Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n"
		"Thread 0:\n0 a 0x1\n\n"
		"Thread 5 Crashed:\n0 a 0x2\n1 a 0x3\n\n"
		"Thread 0:\n0 a 0x4\n\n"
		"Thread 0 name:  one\nThread 0 name:  two\nThread 0:\n\n"
		"Thread 5 crashed with X86 Thread State (64-bit):\n  rax: 0x1\n"
		"Thread 5 crashed with X86 Thread State (64-bit):\n  rax: 0x2  rbx: 0x3\n"
		"Binary Images:\n0x1 - 0x10 a arm64  <01> /a\n\n"
		"Binary Images:\n0x100 - 0x1000 b arm64  <02> /b\n";
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_copy(text, sizeof text - 1, &r, &err), PM_OK);
	cr_expect_str_eq(r.exception.type, "EXC_BAD_ACCESS");
	cr_assert_eq(r.thread_count, 4, "report order is kept, repeats and all");
	cr_expect(r.threads[1].crashed);
	cr_expect_eq(r.threads[1].frame_count, 2);
	cr_expect_eq(r.threads[2].frames[0].address, 4);
	cr_expect_str_eq(r.threads[3].name, "two");
	cr_assert_not_null(r.threads[1].regs);
	cr_expect_eq(r.threads[1].regs->count, 2);
	cr_expect_eq(r.image_count, 1, "everything after the first image list is ignored");
	pm_report_free(&r);
}

Test(read_text_hostile, crlf_line_ends)
{
	size_t len;
	char *data = pm_test_slurp(pm_test_shared("docs/examples/A_ios_classic_sigsegv.crash"), &len);
	char *crlf = malloc(2 * len + 1);
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = data[i];
	}
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_copy(crlf, n, &r, &err), PM_OK);
	cr_expect_eq(r.thread_count, 3);
	cr_expect_eq(r.image_count, 7);
	cr_expect(r.complete);
	cr_assert_not_null(r.exception.vm_region_info);
	cr_expect_null(strchr(r.exception.vm_region_info, '\r'));
	cr_expect_str_eq(r.header.process_name, "CrashDemo");
	pm_report_free(&r);
	free(crlf);
	free(data);
}

/*
 * Found by fuzzing with a write-and-reread check (read, render with
 * pmi_write_text, read again, compare): each input below read into a report
 * whose rendering read back differently.
 */
Test(read_text_hostile, fuzz_findings)
{
	pm_report r;
	pm_read_error err;
	/* An image column holding " 0x…": the address is the token after the TAB. */
	static const char tab[] =
		"Thread 0:\n"
		"0   App 0x102a20000 - 0x102ca3fff X\t0x0000000102268e70 0x10211c000 + 1363568\n";
	cr_assert_eq(read_copy(tab, sizeof tab - 1, &r, &err), PM_OK);
	cr_expect_eq(r.threads[0].frames[0].address, 0x102268e70ull);
	pm_report_free(&r);

	/* Line 0 is no source line: "(a.c:0)" stays part of the symbol. */
	static const char line0[] = "Thread 0:\n0 a 0x10 f (a.c:0)\n";
	cr_assert_eq(read_copy(line0, sizeof line0 - 1, &r, &err), PM_OK);
	cr_expect_null(r.threads[0].frames[0].file);
	cr_expect_str_eq(r.threads[0].frames[0].symbol, "f (a.c:0)");
	pm_report_free(&r);

	/* An empty Termination Reason opens no run of reason lines. */
	static const char reason[] = "Termination Reason: \nstray line\n";
	cr_assert_eq(read_copy(reason, sizeof reason - 1, &r, &err), PM_OK);
	cr_expect_eq(r.exception.term_reason_count, 0);
	pm_report_free(&r);

	/* A repeated Exception Codes line leaves no facts from the first one. */
	static const char codes[] =
		"Exception Codes: KERN_INVALID_ADDRESS at 0xffffffff\n"
		"Exception Codes: 0x1ffffffffffffffff, 0x2\n";
	cr_assert_eq(read_copy(codes, sizeof codes - 1, &r, &err), PM_OK);
	cr_expect(!r.exception.has_address);
	pm_report_free(&r);

	/* x86 exception-state lines mean nothing in an ARM thread state. */
	static const char arm[] =
		"Thread 0 Crashed:\n\n"
		"Thread 0 crashed with ARM Thread State (64-bit):\n"
		"  Error Code:      0x00000006\n"
		"    x0: 0x0000000000000001\n";
	cr_assert_eq(read_copy(arm, sizeof arm - 1, &r, &err), PM_OK);
	cr_expect(!r.threads[0].regs->has_trap);
	cr_expect_eq(r.threads[0].regs->count, 1);
	pm_report_free(&r);

	/* Every CR before a line end goes, in single lines and in blocks. */
	static const char cr[] =
		"Application Specific Information:\nabc\r\r\n\n"
		"VM Region Info: x\r\r\ny\r\r\n\n";
	cr_assert_eq(read_copy(cr, sizeof cr - 1, &r, &err), PM_OK);
	cr_expect_str_eq(r.exception.asi[0], "abc");
	cr_expect_str_eq(r.exception.vm_region_info, "x\ny");
	pm_report_free(&r);

	/* Register names start with a letter; "…c800x15: 0x…" is no cell "00x15". */
	static const char digit[] =
		"Thread 0 Crashed:\n\nThread 0 crashed with ARM Thread State (64-bit):\n"
		"   x14: 0x0000000000f708c8  00x15: 0x0000000000000001\n";
	cr_assert_eq(read_copy(digit, sizeof digit - 1, &r, &err), PM_OK);
	cr_expect_eq(r.threads[0].regs->count, 1);
	pm_report_free(&r);

	/* An esr past the register limit takes its description with it. */
	size_t len;
	char *many = repeat("Thread 0 Crashed:\n\nThread 0 crashed with ARM Thread State (64-bit):\n",
	                    "  x0: 0x1", PM_MAX_REGS, "  esr: 0x56000080  Address size fault\n", &len);
	cr_assert_eq(read_copy(many, len, &r, &err), PM_OK);
	cr_expect_eq(r.threads[0].regs->count, PM_MAX_REGS);
	cr_expect_null(r.threads[0].regs->esr_description);
	pm_report_free(&r);
	free(many);
}
