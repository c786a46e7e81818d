/*
 * decode_esr.c — AS-SAFE decoding of the arm64 ESR (see decode_esr.h).
 *
 * The exception class (EC) is bits 31–26.  For aborts the instruction-specific
 * syndrome gives the fault status (bits 5–0) and, for data, whether it was a
 * write (WnR, bit 6); Apple joins them as "(Data Abort) byte write
 * Permission fault".  Every answer is a whole static string so the crash
 * path can hand it to the model without copying; the tables hold the text
 * itself, not pointers to it (no relocations at load: decode.h).
 */
#include "decode_esr.h"

#include <stddef.h>

enum { EC_DATA_LOWER = 0x24, EC_DATA_SAME = 0x25, EC_INSN_LOWER = 0x20, EC_INSN_SAME = 0x21, EC_BRK = 0x3c };

static const char data_abort[2][PM_ESR_STATUS_KINDS][56] = {
	{ "(Data Abort) byte read Address size fault", "(Data Abort) byte read Translation fault",
	  "(Data Abort) byte read Access flag fault", "(Data Abort) byte read Permission fault",
	  "(Data Abort) byte read Alignment fault", "(Data Abort) byte read Synchronous external abort",
	  "(Data Abort) byte read" },
	{ "(Data Abort) byte write Address size fault", "(Data Abort) byte write Translation fault",
	  "(Data Abort) byte write Access flag fault", "(Data Abort) byte write Permission fault",
	  "(Data Abort) byte write Alignment fault", "(Data Abort) byte write Synchronous external abort",
	  "(Data Abort) byte write" },
};
static const char insn_abort[PM_ESR_STATUS_KINDS][52] = {
	"(Instruction Abort) Address size fault", "(Instruction Abort) Translation fault",
	"(Instruction Abort) Access flag fault", "(Instruction Abort) Permission fault",
	"(Instruction Abort) Alignment fault", "(Instruction Abort) Synchronous external abort",
	"(Instruction Abort)",
};

/* The immediates compilers and runtimes put in BRK: Swift and Apple (1),
 * GCC's __builtin_trap (0x3e8), clang's (0xf000), Rust's panic (0xf000 too). */
static const struct {
	uint16_t imm;
	char text[28];
} brks[] = {
	{ 0x0, "(Breakpoint) brk 0" }, { 0x1, "(Breakpoint) brk 1" },
	{ 0x3e8, "(Breakpoint) brk 1000" }, { 0xf000, "(Breakpoint) brk 61440" },
};

static const struct {
	uint8_t ec;
	char text[32];
} classes[] = {
	{ 0x00, "(Unknown)" },          /* an undefined instruction */
	{ 0x0e, "(Illegal Execution State)" },
	{ 0x15, "(Syscall)" },
	{ 0x22, "(PC Alignment)" },
	{ 0x26, "(SP Alignment)" },
	{ 0x2c, "(Floating Point)" },
	{ 0x3c, "(Breakpoint)" },
};

/* Address size, translation, access flag and permission faults come one per
 * translation table level (the low two bits); the others name no level. */
static int
status_kind(uint32_t fsc)
{
	if (fsc <= 0x03)
		return PM_ESR_ADDRESS;
	if (fsc <= 0x07)
		return PM_ESR_TRANSLATION;
	if (fsc >= 0x09 && fsc <= 0x0b)
		return PM_ESR_ACCESS;
	if (fsc >= 0x0d && fsc <= 0x0f)
		return PM_ESR_PERMISSION;
	if (fsc == 0x21)
		return PM_ESR_ALIGNMENT;
	if (fsc == 0x10)
		return PM_ESR_EXTERNAL;
	return PM_ESR_OTHER_STATUS;
}

pm_esr_parts
pmi_esr_parts(uint32_t esr)
{
	uint32_t ec = esr >> 26, iss = esr & 0x1ffffff;
	pm_esr_parts p = { .ec = (uint8_t)ec, .kind = PM_ESR_OTHER_CLASS, .level = -1, .imm = (uint16_t)iss };
	if (ec == EC_DATA_LOWER || ec == EC_DATA_SAME)
		p.kind = PM_ESR_DATA_ABORT;
	else if (ec == EC_INSN_LOWER || ec == EC_INSN_SAME)
		p.kind = PM_ESR_INSN_ABORT;
	else if (ec == EC_BRK)
		p.kind = PM_ESR_BRK;
	if (p.kind == PM_ESR_DATA_ABORT || p.kind == PM_ESR_INSN_ABORT) {
		p.fsc = iss & 0x3f;
		p.status = (uint8_t)status_kind(p.fsc);
		p.write = p.kind == PM_ESR_DATA_ABORT && (iss >> 6 & 1);
		if (p.status <= PM_ESR_PERMISSION)
			p.level = (int8_t)(p.fsc & 3);
	}
	return p;
}

const char *
pmi_decode_esr(uint32_t esr)
{
	pm_esr_parts p = pmi_esr_parts(esr);
	if (p.kind == PM_ESR_DATA_ABORT)
		return data_abort[p.write][p.status];
	if (p.kind == PM_ESR_INSN_ABORT)
		return insn_abort[p.status];
	if (p.kind == PM_ESR_BRK)
		for (size_t i = 0; i < sizeof brks / sizeof brks[0]; i++)
			if (brks[i].imm == p.imm)
				return brks[i].text;
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (classes[i].ec == p.ec)
			return classes[i].text;
	return NULL;
}
