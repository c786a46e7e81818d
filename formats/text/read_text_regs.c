/*
 * read_text_regs.c — the thread-state block (format reference §8).
 *
 * Every layout (Apple arm64/arm32/x86_64, PLCrashReporter's rip-first x86-64,
 * KSCrash) is rows of "name: 0x…" cells, so rows are read cell by cell and the
 * registers kept in the order printed.  The arm64 esr cell carries a decoded
 * description; x86 adds Logical CPU / Error Code / Trap Number lines.
 */
#include "model.h"
#include "read_text.h"

#include <string.h>

static pm_arch
arch_of(tx_span title)
{
	/* "ARM Thread State (64-bit)", "ARM-64 Thread State", "X86-64 Thread State", … */
	bool wide = pmi_tx_find(title, "64") < title.n;
	if (pmi_tx_starts(title, "ARM"))
		return wide ? PM_ARCH_ARM64 : PM_ARCH_ARM32;
	if (pmi_tx_starts(title, "X86"))
		return wide ? PM_ARCH_X86_64 : PM_ARCH_X86;
	return PM_ARCH_UNKNOWN;
}

/* The last thread the text gave this number. */
static pm_thread *
numbered_thread(tx_parser *p, uint64_t number)
{
	for (uint32_t i = p->r->thread_count; i > 0; i--)
		if (p->r->threads[i - 1].number == number)
			return &p->r->threads[i - 1];
	return NULL;
}

void
pmi_tx_regs_begin(tx_parser *p, uint64_t number, tx_span title)
{
	pmi_tx_begin_section(p, TX_REGS);
	p->regs = NULL;
	/* Past one title per possible thread the rest are repeats: skip the lookups. */
	if (p->regs_titles >= TX_MAX_THREADS)
		return;
	p->regs_titles++;
	pm_thread *t = numbered_thread(p, number);
	if (!t)
		return;
	/* A repeated title rewrites the thread's registers rather than piling up copies. */
	pm_regs *g = t->regs ? t->regs : pmi_arena_alloc(p->r->arena, sizeof *g, _Alignof(pm_regs));
	if (!g)
		return;
	memset(g, 0, sizeof *g);
	g->arch = (uint8_t)arch_of(title);
	t->regs = g;
	p->regs = g;
}

static bool
is_reg_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || pmi_tx_is_digit(c) || c == '_';
}

/* One "name: 0x…" cell at the front of *s. */
static bool
take_cell(tx_span *s, tx_span *name, uint64_t *value)
{
	tx_span t = pmi_tx_ltrim(*s);
	size_t i = 0;
	while (i < t.n && is_reg_char(t.p[i]))
		i++;
	/* Names start with a letter ("x0", "rax"), never a digit. */
	if (i == 0 || i >= t.n || t.p[i] != ':' || pmi_tx_is_digit(t.p[0]))
		return false;
	tx_span rest = pmi_tx_ltrim(pmi_tx_tail(t, i + 1));
	if (!pmi_tx_take_hex(&rest, value))
		return false;
	*name = pmi_tx_head(t, i);
	*s = rest;
	return true;
}

static bool
add_reg(pm_regs *g, tx_span name, uint64_t value)
{
	if (!g || g->count >= PM_MAX_REGS || name.n >= PM_REG_NAME_MAX)
		return false;
	pm_reg *reg = &g->reg[g->count++];
	memcpy(reg->name, name.p, name.n);
	reg->name[name.n] = '\0';
	reg->value = value;
	return true;
}

/* Text after a value: the writer puts exactly one space before it, so keep the rest as is. */
static void
set_description(pm_arena *a, const char **dst, tx_span rest)
{
	if (rest.n && pmi_tx_is_space(rest.p[0]))
		rest = pmi_tx_tail(rest, 1);
	rest = pmi_tx_rtrim(rest);
	if (rest.n)
		*dst = pmi_tx_copy(a, rest);
}

static bool
read_cells(tx_parser *p, tx_span s)
{
	tx_span name = { 0 };
	uint64_t value;
	unsigned n = 0;
	bool kept = false;
	for (; take_cell(&s, &name, &value); n++)
		kept = add_reg(p->regs, name, value);
	/* "esr: 0x92000006 (Data Abort) byte read Translation fault" */
	if (kept && pmi_tx_eq(name, "esr"))
		set_description(p->r->arena, &p->regs->esr_description, s);
	return n > 0;
}

/* x86 "Logical CPU:", "Error Code:" (with its decoding) and "Trap Number:". */
static bool
exception_state(tx_parser *p, tx_span t)
{
	/* ARM has no such lines: there they are not part of the thread state. */
	pm_regs *g = p->regs && p->regs->arch != PM_ARCH_ARM64 && p->regs->arch != PM_ARCH_ARM32
	             ? p->regs : NULL;
	uint64_t v;
	if (pmi_tx_skip(&t, "Logical CPU:")) {
		if (g && pmi_tx_dec(pmi_tx_trim(t), &v) && v <= UINT32_MAX) {
			g->has_cpu = true;
			g->logical_cpu = (uint32_t)v;
		}
	} else if (pmi_tx_skip(&t, "Error Code:")) {
		t = pmi_tx_ltrim(t);
		if (g && pmi_tx_take_hex(&t, &v)) {
			g->has_trap = true;
			g->error_code = v;
			set_description(p->r->arena, &g->trap_description, t);
		}
	} else if (pmi_tx_skip(&t, "Trap Number:")) {
		if (g && pmi_tx_dec(pmi_tx_trim(t), &v)) {
			g->has_trap = true;
			g->trap_number = v;
		}
	} else {
		return false;
	}
	return true;
}

bool
pmi_tx_regs_line(tx_parser *p, tx_span line)
{
	tx_span t = pmi_tx_trim(line);
	return read_cells(p, t) || exception_state(p, t);
}
