/*
 * write_text_regs.c — AS-SAFE thread-state block of the .crash text.
 *
 * Apple's register layouts (format reference §8), by architecture:
 *   x86_64  cells "%5s: 0x%016llx", 4 a row, no indent; then "  ", CPU/trap lines
 *   arm64   one space, cells "%5s: 0x%016llx" (cpsr/esr 8 digits); rows end
 *           after x3, x7, …, x27, lr, cpsr; esr carries its description
 *   arm32   cells "%6s: 0x%08x" then "%8s: 0x%08x", 4 a row
 * Registers print in model order; the row rules only decide where lines break.
 */
#include "write_text.h"

#include <string.h>

#include "model.h"
#include "text_escape.h"

typedef struct layout {
	pm_arch arch;
	const char *title;
	const char *indent;
	unsigned name_width[4];   /* per column */
	unsigned digits;
	const char *const *breaks; /* names that end a row early, NULL-terminated */
	const char *const *narrow; /* names printed with 8 digits */
} layout;

static const char *const arm64_breaks[] = {
	"x3", "x7", "x11", "x15", "x19", "x23", "x27", "lr", "cpsr", NULL
};
static const char *const arm64_narrow[] = { "cpsr", "esr", NULL };
static const char *const none[] = { NULL };

static const layout layouts[] = {
	{ PM_ARCH_X86_64, "X86 Thread State (64-bit)", "", { 5, 5, 5, 5 }, 16, none, none },
	{ PM_ARCH_ARM64, "ARM Thread State (64-bit)", " ", { 5, 5, 5, 5 }, 16, arm64_breaks, arm64_narrow },
	{ PM_ARCH_ARM32, "ARM Thread State (32-bit)", "", { 6, 6, 8, 8 }, 8, none, none },
	{ PM_ARCH_X86, "X86 Thread State (32-bit)", "", { 5, 5, 5, 5 }, 8, none, none },
};

static bool
in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

static const layout *
layout_for(uint8_t arch)
{
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		if (layouts[i].arch == arch)
			return &layouts[i];
	return NULL;
}

static void
write_rows(const layout *l, const pm_regs *g, pm_out *o)
{
	unsigned col = 0;
	for (unsigned i = 0; i < g->count; i++) {
		const pm_reg *reg = &g->reg[i];
		if (col == 0)
			pmi_out_str(o, l->indent);
		/* A name as wide as its column would touch the previous value. */
		if (col > 0 && strlen(reg->name) >= l->name_width[col])
			pmi_out_ch(o, ' ');
		pmi_out_rpad(o, reg->name, l->name_width[col]);
		pmi_out_str(o, ": ");
		pmi_out_0x(o, reg->value, in_list(l->narrow, reg->name) ? 8 : l->digits);
		if (g->esr_description && strcmp(reg->name, "esr") == 0) {
			pmi_out_ch(o, ' ');
			pmi_text_put(o, g->esr_description);
		}
		col++;
		if (col == 4 || in_list(l->breaks, reg->name) || i + 1 == g->count) {
			pmi_out_ch(o, '\n');
			col = 0;
		}
	}
}

/* "Label:" left-justified so values start at column 17. */
static void
x86_line(pm_out *o, const char *label)
{
	pmi_out_lpad(o, label, 17);
}

static void
write_x86_exception_state(const pm_regs *g, pm_out *o)
{
	pmi_out_str(o, "  \n");
	if (g->has_cpu) {
		x86_line(o, "Logical CPU:");
		pmi_out_u64(o, g->logical_cpu);
		pmi_out_ch(o, '\n');
	}
	if (g->has_trap) {
		x86_line(o, "Error Code:");
		pmi_out_0x(o, g->error_code, 8);
		if (g->trap_description) {
			pmi_out_ch(o, ' ');
			pmi_text_put(o, g->trap_description);
		}
		pmi_out_ch(o, '\n');
		x86_line(o, "Trap Number:");
		pmi_out_u64(o, g->trap_number);
		pmi_out_ch(o, '\n');
	}
	pmi_out_ch(o, '\n');
}

void
pmi_write_thread_state(const pm_report *r, pm_out *o)
{
	int32_t t = pm_report_crashed_thread(r);
	if (t < 0 || !r->threads[t].regs)
		return;
	const pm_regs *g = r->threads[t].regs;
	const layout *l = layout_for(g->arch);
	if (!l)
		return;
	pmi_out_str(o, "Thread ");
	pmi_out_u64(o, r->threads[t].number);
	pmi_out_str(o, " crashed with ");
	pmi_out_str(o, l->title);
	pmi_out_str(o, ":\n");
	write_rows(l, g, o);
	if (g->arch == PM_ARCH_X86_64 || g->arch == PM_ARCH_X86)
		write_x86_exception_state(g, o);
	pmi_out_ch(o, '\n');
}
