/*
 * decode_esr.c — AS-SAFE decoding of the arm64 ESR (see decode_esr.h).
 *
 * The exception class (EC) is bits 31–26.  For aborts the instruction-specific
 * syndrome gives the fault status (bits 5–0) and, for data, whether it was a
 * write (WnR, bit 6); Apple joins them as "(Data Abort) byte write
 * Permission fault".  Every answer is a whole static string so the crash
 * path can hand it to the model without copying.
 */
#include "decode_esr.h"

#include <stddef.h>

enum { EC_DATA_LOWER = 0x24, EC_DATA_SAME = 0x25, EC_INSN_LOWER = 0x20, EC_INSN_SAME = 0x21, EC_BRK = 0x3c };
enum { STATUS_ADDRESS, STATUS_TRANSLATION, STATUS_ACCESS, STATUS_PERMISSION, STATUS_ALIGNMENT,
       STATUS_EXTERNAL, STATUS_OTHER, STATUS_KINDS };

static const char *const data_abort[2][STATUS_KINDS] = {
	{ "(Data Abort) byte read Address size fault", "(Data Abort) byte read Translation fault",
	  "(Data Abort) byte read Access flag fault", "(Data Abort) byte read Permission fault",
	  "(Data Abort) byte read Alignment fault", "(Data Abort) byte read Synchronous external abort",
	  "(Data Abort) byte read" },
	{ "(Data Abort) byte write Address size fault", "(Data Abort) byte write Translation fault",
	  "(Data Abort) byte write Access flag fault", "(Data Abort) byte write Permission fault",
	  "(Data Abort) byte write Alignment fault", "(Data Abort) byte write Synchronous external abort",
	  "(Data Abort) byte write" },
};
static const char *const insn_abort[STATUS_KINDS] = {
	"(Instruction Abort) Address size fault", "(Instruction Abort) Translation fault",
	"(Instruction Abort) Access flag fault", "(Instruction Abort) Permission fault",
	"(Instruction Abort) Alignment fault", "(Instruction Abort) Synchronous external abort",
	"(Instruction Abort)",
};

/* The immediates compilers and runtimes put in BRK: Swift and Apple (1),
 * GCC's __builtin_trap (0x3e8), clang's (0xf000), Rust's panic (0xf000 too). */
static const struct {
	uint16_t imm;
	const char *text;
} brks[] = {
	{ 0x0, "(Breakpoint) brk 0" }, { 0x1, "(Breakpoint) brk 1" },
	{ 0x3e8, "(Breakpoint) brk 1000" }, { 0xf000, "(Breakpoint) brk 61440" },
};

static const struct {
	uint8_t ec;
	const char *text;
} classes[] = {
	{ 0x00, "(Unknown)" },          /* an undefined instruction */
	{ 0x0e, "(Illegal Execution State)" },
	{ 0x15, "(Syscall)" },
	{ 0x22, "(PC Alignment)" },
	{ 0x26, "(SP Alignment)" },
	{ 0x2c, "(Floating Point)" },
	{ 0x3c, "(Breakpoint)" },
};

static int
status_kind(uint32_t fsc)
{
	if (fsc <= 0x03)
		return STATUS_ADDRESS;
	if (fsc <= 0x07)
		return STATUS_TRANSLATION;
	if (fsc >= 0x09 && fsc <= 0x0b)
		return STATUS_ACCESS;
	if (fsc >= 0x0d && fsc <= 0x0f)
		return STATUS_PERMISSION;
	if (fsc == 0x21)
		return STATUS_ALIGNMENT;
	if (fsc == 0x10)
		return STATUS_EXTERNAL;
	return STATUS_OTHER;
}

const char *
pmi_decode_esr(uint32_t esr)
{
	uint32_t ec = esr >> 26, iss = esr & 0x1ffffff;
	if (ec == EC_DATA_LOWER || ec == EC_DATA_SAME)
		return data_abort[(iss >> 6) & 1][status_kind(iss & 0x3f)];
	if (ec == EC_INSN_LOWER || ec == EC_INSN_SAME)
		return insn_abort[status_kind(iss & 0x3f)];
	if (ec == EC_BRK)
		for (size_t i = 0; i < sizeof brks / sizeof brks[0]; i++)
			if (brks[i].imm == (iss & 0xffff))
				return brks[i].text;
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (classes[i].ec == ec)
			return classes[i].text;
	return NULL;
}
