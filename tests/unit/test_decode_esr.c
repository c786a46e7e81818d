/*
 * test_decode_esr.c — arm64 ESR descriptions as Apple prints them: the values
 * and strings of the format reference (§8.1, §13.8) and of real reports.
 */
#include <criterion/criterion.h>

#include "formats/decode/decode_esr.h"

Test(decode_esr, apple_observed)
{
	cr_expect_str_eq(pmi_decode_esr(0x92000004), "(Data Abort) byte read Translation fault");
	cr_expect_str_eq(pmi_decode_esr(0x92000006), "(Data Abort) byte read Translation fault");
	cr_expect_str_eq(pmi_decode_esr(0x92000046), "(Data Abort) byte write Translation fault");
	cr_expect_str_eq(pmi_decode_esr(0x92000047), "(Data Abort) byte write Translation fault");
	cr_expect_str_eq(pmi_decode_esr(0x82000004), "(Instruction Abort) Translation fault");
	cr_expect_str_eq(pmi_decode_esr(0x82000006), "(Instruction Abort) Translation fault");
	cr_expect_str_eq(pmi_decode_esr(0xf2000001), "(Breakpoint) brk 1");
	cr_expect_str_eq(pmi_decode_esr(0x56000080), "(Syscall)");
}

Test(decode_esr, linux_faults)
{
	/* A write to read-only memory from user space (EC 0x24, WnR, permission fault level 3). */
	cr_expect_str_eq(pmi_decode_esr(0x9200004f), "(Data Abort) byte write Permission fault");
	/* GCC's __builtin_trap is brk #1000. */
	cr_expect_str_eq(pmi_decode_esr(0xf20003e8), "(Breakpoint) brk 1000");
	/* An undefined instruction: EC 0. */
	cr_expect_str_eq(pmi_decode_esr(0x02000000), "(Unknown)");
	cr_expect_null(pmi_decode_esr(0x3f << 26));
}
