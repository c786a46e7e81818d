/*
 * minidump_context.c — AS-SAFE: the model's registers in a minidump CPU
 * context and back, one table per architecture (offsets from the
 * MINIDUMP's CONTEXT_AMD64 and Breakpad's MDRawContextARM64_Old).
 *
 * arm64 takes Breakpad's original layout (64-bit flags, x0–x28, fp, lr, sp,
 * pc, cpsr, with SystemInfo's processor 0x8003), not Microsoft's newer one
 * (processor 12): minidump_stackwalk reads both, but LLDB reads every arm64
 * context with the original layout.
 */
#include <string.h>

#include "minidump.h"

typedef struct reg_slot {
	char name[PM_REG_NAME_MAX];
	uint16_t offset;
	uint8_t width;
} reg_slot;

/* In the report's (Apple's) order; cr2 has no place in a CONTEXT. */
static const reg_slot amd64_regs[] = {
	{ "rax", 120, 8 }, { "rbx", 144, 8 }, { "rcx", 128, 8 }, { "rdx", 136, 8 },
	{ "rdi", 176, 8 }, { "rsi", 168, 8 }, { "rbp", 160, 8 }, { "rsp", 152, 8 },
	{ "r8", 184, 8 }, { "r9", 192, 8 }, { "r10", 200, 8 }, { "r11", 208, 8 },
	{ "r12", 216, 8 }, { "r13", 224, 8 }, { "r14", 232, 8 }, { "r15", 240, 8 },
	{ "rip", 248, 8 }, { "rfl", 68, 4 },
};

/* CONTEXT_AMD64 | CONTROL | INTEGER */
static const pm_md_context_layout amd64 = {
	.arch = PM_ARCH_X86_64, .cpu = PM_MD_CPU_AMD64, .size = PM_MD_CONTEXT_AMD64_SIZE,
	.flags_offset = 48, .flags = 0x00100003, .sp_offset = 152, .pc_offset = 248,
};

/* iregs[33] from offset 8 (x0–x28, fp, lr, sp, pc), then cpsr; far and esr
 * have no place in a context. */
static const reg_slot arm64_regs[] = {
	{ "x0", 8, 8 }, { "x1", 16, 8 }, { "x2", 24, 8 }, { "x3", 32, 8 }, { "x4", 40, 8 },
	{ "x5", 48, 8 }, { "x6", 56, 8 }, { "x7", 64, 8 }, { "x8", 72, 8 }, { "x9", 80, 8 },
	{ "x10", 88, 8 }, { "x11", 96, 8 }, { "x12", 104, 8 }, { "x13", 112, 8 }, { "x14", 120, 8 },
	{ "x15", 128, 8 }, { "x16", 136, 8 }, { "x17", 144, 8 }, { "x18", 152, 8 }, { "x19", 160, 8 },
	{ "x20", 168, 8 }, { "x21", 176, 8 }, { "x22", 184, 8 }, { "x23", 192, 8 }, { "x24", 200, 8 },
	{ "x25", 208, 8 }, { "x26", 216, 8 }, { "x27", 224, 8 }, { "x28", 232, 8 }, { "fp", 240, 8 },
	{ "lr", 248, 8 }, { "sp", 256, 8 }, { "pc", 264, 8 }, { "cpsr", 272, 4 },
};

/* MD_CONTEXT_ARM64_OLD | INTEGER (the integer flag covers sp and pc too) */
static const pm_md_context_layout arm64 = {
	.arch = PM_ARCH_ARM64, .cpu = PM_MD_CPU_ARM64_BREAKPAD, .size = PM_MD_CONTEXT_ARM64_SIZE,
	.flags_offset = 0, .flags = 0x80000002, .sp_offset = 256, .pc_offset = 264,
};

const pm_md_context_layout *
pmi_md_context_for_arch(uint8_t arch)
{
	return arch == PM_ARCH_X86_64 ? &amd64 : arch == PM_ARCH_ARM64 ? &arm64 : NULL;
}

const pm_md_context_layout *
pmi_md_context_for_cpu(uint16_t cpu)
{
	return cpu == PM_MD_CPU_AMD64 ? &amd64 : cpu == PM_MD_CPU_ARM64_BREAKPAD ? &arm64 : NULL;
}

static void
table_for(const pm_md_context_layout *l, const reg_slot **t, size_t *n)
{
	*t = NULL;
	*n = 0;
	if (l == &amd64) {
		*t = amd64_regs;
		*n = sizeof amd64_regs / sizeof amd64_regs[0];
	} else if (l == &arm64) {
		*t = arm64_regs;
		*n = sizeof arm64_regs / sizeof arm64_regs[0];
	}
}

void
pmi_md_context_from_regs(const pm_md_context_layout *l, const pm_regs *regs, uint8_t *out)
{
	const reg_slot *t;
	size_t n;
	table_for(l, &t, &n);
	memset(out, 0, l->size);
	pm_md_put32(out + l->flags_offset, l->flags);
	/* The model lists registers in the table's order: starting the search at
	 * the same place finds each at once (a crash writes one context per thread). */
	for (uint32_t i = 0; i < regs->count && i < PM_MAX_REGS; i++)
		for (size_t j = 0; j < n; j++) {
			size_t k = (i + j) % n;
			if (strncmp(regs->reg[i].name, t[k].name, PM_REG_NAME_MAX) != 0)
				continue;
			if (t[k].width == 8)
				pm_md_put64(out + t[k].offset, regs->reg[i].value);
			else
				pm_md_put32(out + t[k].offset, (uint32_t)regs->reg[i].value);
			break;
		}
}

void
pmi_md_regs_from_context(const pm_md_context_layout *l, const uint8_t *ctx, pm_regs *out)
{
	const reg_slot *t;
	size_t n;
	table_for(l, &t, &n);
	memset(out, 0, sizeof *out);
	out->arch = l->arch;
	for (size_t k = 0; k < n && k < PM_MAX_REGS; k++) {
		pm_reg *r = &out->reg[out->count++];
		memcpy(r->name, t[k].name, sizeof r->name);
		r->value = t[k].width == 8 ? pm_md_get64(ctx + t[k].offset) : pm_md_get32(ctx + t[k].offset);
	}
}
