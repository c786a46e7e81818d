/*
 * test_explain_esr.c — `explain` words an arm64 report's exception syndrome
 * (esr): real Apple reports read in place (a Swift brk #1 in .ips and .crash
 * form, an abort's system call), and Linux models whose esr a kernel would
 * give (data and instruction aborts with their level, GCC's brk #1000).  A
 * report without an esr (qemu-user leaves none) is explained from its signal
 * alone.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"
#include "util.h"

static void
expect_has(const char *text, const char *phrase)
{
	cr_expect(strstr(text, phrase) != NULL, "missing \"%s\" in:\n%s", phrase, text);
}

static char *
explain_apple(const char *sample)
{
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_assert_eq(pm_read_report_file(pm_test_shared("samples/apple/%s", sample), &r, &err), PM_OK, "%s: %s",
	             sample, err.message);
	char *s = pm_explain(&r, false);
	cr_assert_not_null(s);
	pm_report_free(&r);
	return s;
}

Test(explain_esr, apple_swift_trap_ips)
{
	char *s = explain_apple("macsymbolicator__ios-crash-in-ips-format.ips");
	expect_has(s, "The CPU's exception syndrome (esr 0xf2000001) says a breakpoint instruction (brk #1), "
	              "emitted by Swift's failed runtime checks");
	free(s);
}

Test(explain_esr, apple_swift_trap_crash_text)
{
	char *s = explain_apple("macsymbolicator__ios-crash-with-json-header.crash");
	expect_has(s, "(esr 0xf2000001) says a breakpoint instruction (brk #1)");
	free(s);
}

/* An abort's last exception was its system call: Apple prints " Address size fault" for it. */
Test(explain_esr, apple_abort_is_a_system_call)
{
	char *s = explain_apple("pycrashreport__user_mode_crash_report_ios14_symbolicated.ips");
	expect_has(s, "(esr 0x56000080) says a system call (svc)");
	free(s);
}

/* A Linux arm64 crash of the crashed thread `esr` (0: none, as under qemu-user). */
static char *
explain_linux(const char *signal, int32_t number, const char *type, int32_t si_code, uint64_t address,
              uint64_t esr)
{
	pm_report r;
	pm_report_init(&r);
	r.os = PM_OS_LINUX;
	r.threads = pm_report_alloc(&r, sizeof *r.threads, 16);
	pm_regs *g = pm_report_alloc(&r, sizeof *g, 16);
	pm_frame *f = pm_report_alloc(&r, sizeof *f, 16);
	cr_assert(r.threads && g && f);
	*f = (pm_frame){ .address = 0x5500001000, .image = -1 };
	*g = (pm_regs){ .arch = PM_ARCH_ARM64 };
	static const char *const names[] = { "pc", "sp", "far", "esr" };
	uint64_t values[] = { 0x5500001000, 0x7ffffff000, address, esr };
	for (uint32_t i = 0; i < (esr ? 4u : 3u); i++) {
		strcpy(g->reg[i].name, names[i]);
		g->reg[i].value = values[i];
		g->count++;
	}
	r.threads[0] = (pm_thread){ .id = 7, .crashed = true, .captured = true, .frames = f, .frame_count = 1,
	                            .regs = g };
	r.thread_count = 1;
	r.exception = (pm_exception){ .signal_name = signal, .signal = number, .type = type, .has_si_code = true,
	                              .si_code = si_code, .has_address = true, .address = address };
	char *s = pm_explain(&r, false);
	cr_assert_not_null(s);
	pm_report_free(&r);
	return s;
}

Test(explain_esr, data_abort_translation_fault_with_level)
{
	char *s = explain_linux("SIGSEGV", 11, "EXC_BAD_ACCESS", 1, 0x10, 0x92000006);
	expect_has(s, "NULL pointer dereference");
	expect_has(s, "(esr 0x92000006) says a data read hit a translation fault at translation table level 2: "
	              "nothing is mapped at that address.");
	free(s);
}

Test(explain_esr, data_abort_permission_fault_on_write)
{
	char *s = explain_linux("SIGSEGV", 11, "EXC_BAD_ACCESS", 2, 0x5500002000, 0x9200004f);
	expect_has(s, "says a data write hit a permission fault at translation table level 3: the page is mapped "
	              "but forbids this access");
	free(s);
}

Test(explain_esr, instruction_abort_and_alignment)
{
	char *s = explain_linux("SIGSEGV", 11, "EXC_BAD_ACCESS", 2, 0x5500002000, 0x8200000f);
	expect_has(s, "says an instruction fetch hit a permission fault at translation table level 3: the page is "
	              "mapped but not executable.");
	free(s);
	s = explain_linux("SIGBUS", 7, "EXC_BAD_ACCESS", 1, 0x5500002001, 0x92000021);
	expect_has(s, "says a data read hit an alignment fault: the access was misaligned.");
	free(s);
}

Test(explain_esr, gcc_builtin_trap)
{
	char *s = explain_linux("SIGTRAP", 5, "EXC_BREAKPOINT", 1, 0x5500001000, 0xf20003e8);
	expect_has(s, "says a breakpoint instruction (brk #1000), emitted by GCC's __builtin_trap.");
	free(s);
}

/* qemu-user writes no esr_context: the signal and its si_code say what there is to say. */
Test(explain_esr, no_esr_under_qemu)
{
	char *s = explain_linux("SIGTRAP", 5, "EXC_BREAKPOINT", 1, 0x5500001000, 0);
	expect_has(s, "The process was killed by SIGTRAP (EXC_BREAKPOINT)");
	expect_has(s, "The kernel reported TRAP_BRKPT");
	cr_expect(strstr(s, "exception syndrome") == NULL, "an esr sentence without an esr:\n%s", s);
	free(s);
}
