/*
 * as_cfi_prog.c — AS-SAFE interpreter of call frame instructions (DWARF 5
 * §6.4.2): runs a CIE's initial instructions, then its FDE's, until the
 * location passes the pc, and leaves the row of rules in force there.
 *
 * Each opcode is described by a table entry (operand layout, action, rule)
 * so decoding and acting stay two small steps.  Registers outside pm_cpu
 * (vector registers and the like) are parsed and ignored.
 */
#include "as_cfi_prog.h"

/* The first operand: a register number, from the next LEB128 or the opcode's low 6 bits. */
enum reg_from { REG_NONE, REG_ULEB, REG_INLINE };

/* The second operand. */
enum val_from {
	VAL_NONE,
	VAL_REG,                        /* another register (DW_CFA_register) */
	VAL_UF,                         /* ULEB128 × data alignment */
	VAL_SF,                         /* SLEB128 × data alignment */
	VAL_U,                          /* ULEB128 as is */
	VAL_BLOCK,                      /* ULEB128 length, then an expression */
	VAL_DELTA_INLINE,               /* location deltas × code alignment */
	VAL_DELTA1,
	VAL_DELTA2,
	VAL_DELTA4,
	VAL_ADDR,                       /* DW_CFA_set_loc: a pointer in the FDE's encoding */
};

enum action {
	ACT_BAD = 0,                    /* unknown opcodes */
	ACT_NOP,
	ACT_ADVANCE,
	ACT_SET_LOC,
	ACT_RULE,
	ACT_RESTORE,
	ACT_REMEMBER,
	ACT_RESTORE_STATE,
	ACT_CFA,
	ACT_CFA_REG,
	ACT_CFA_OFFSET,
	ACT_CFA_EXPR,
};

typedef struct insn {
	uint8_t reg, val, act, how;
	bool negate;                    /* DW_CFA_GNU_negative_offset_extended */
} insn;

static const insn primary[4] = {
	[DW_CFA_advance_loc >> 6] = { REG_NONE, VAL_DELTA_INLINE, ACT_ADVANCE, 0, false },
	[DW_CFA_offset >> 6] = { REG_INLINE, VAL_UF, ACT_RULE, PM_CFI_OFFSET, false },
	[DW_CFA_restore >> 6] = { REG_INLINE, VAL_NONE, ACT_RESTORE, 0, false },
};

static const insn extended[0x30] = {
	[DW_CFA_nop] = { REG_NONE, VAL_NONE, ACT_NOP, 0, false },
	[DW_CFA_set_loc] = { REG_NONE, VAL_ADDR, ACT_SET_LOC, 0, false },
	[DW_CFA_advance_loc1] = { REG_NONE, VAL_DELTA1, ACT_ADVANCE, 0, false },
	[DW_CFA_advance_loc2] = { REG_NONE, VAL_DELTA2, ACT_ADVANCE, 0, false },
	[DW_CFA_advance_loc4] = { REG_NONE, VAL_DELTA4, ACT_ADVANCE, 0, false },
	[DW_CFA_offset_extended] = { REG_ULEB, VAL_UF, ACT_RULE, PM_CFI_OFFSET, false },
	[DW_CFA_restore_extended] = { REG_ULEB, VAL_NONE, ACT_RESTORE, 0, false },
	[DW_CFA_undefined] = { REG_ULEB, VAL_NONE, ACT_RULE, PM_CFI_UNDEF, false },
	[DW_CFA_same_value] = { REG_ULEB, VAL_NONE, ACT_RULE, PM_CFI_SAME, false },
	[DW_CFA_register] = { REG_ULEB, VAL_REG, ACT_RULE, PM_CFI_REG, false },
	[DW_CFA_remember_state] = { REG_NONE, VAL_NONE, ACT_REMEMBER, 0, false },
	[DW_CFA_restore_state] = { REG_NONE, VAL_NONE, ACT_RESTORE_STATE, 0, false },
	[DW_CFA_def_cfa] = { REG_ULEB, VAL_U, ACT_CFA, 0, false },
	[DW_CFA_def_cfa_register] = { REG_ULEB, VAL_NONE, ACT_CFA_REG, 0, false },
	[DW_CFA_def_cfa_offset] = { REG_NONE, VAL_U, ACT_CFA_OFFSET, 0, false },
	[DW_CFA_def_cfa_expression] = { REG_NONE, VAL_BLOCK, ACT_CFA_EXPR, 0, false },
	[DW_CFA_expression] = { REG_ULEB, VAL_BLOCK, ACT_RULE, PM_CFI_EXPR, false },
	[DW_CFA_offset_extended_sf] = { REG_ULEB, VAL_SF, ACT_RULE, PM_CFI_OFFSET, false },
	[DW_CFA_def_cfa_sf] = { REG_ULEB, VAL_SF, ACT_CFA, 0, false },
	[DW_CFA_def_cfa_offset_sf] = { REG_NONE, VAL_SF, ACT_CFA_OFFSET, 0, false },
	[DW_CFA_val_offset] = { REG_ULEB, VAL_UF, ACT_RULE, PM_CFI_VAL_OFFSET, false },
	[DW_CFA_val_offset_sf] = { REG_ULEB, VAL_SF, ACT_RULE, PM_CFI_VAL_OFFSET, false },
	[DW_CFA_val_expression] = { REG_ULEB, VAL_BLOCK, ACT_RULE, PM_CFI_VAL_EXPR, false },
	/* Return addresses signed from here on: the step strips them (as_arch_strip_ra)
	 * whether signed or not, so the toggle itself changes no rule. */
	[DW_CFA_AARCH64_negate_ra_state] = { REG_NONE, VAL_NONE, ACT_NOP, 0, false },
	/* The outgoing argument area size matters to the C++ runtime, not to a walk. */
	[DW_CFA_GNU_args_size] = { REG_NONE, VAL_U, ACT_NOP, 0, false },
	[DW_CFA_GNU_negative_offset_extended] = { REG_ULEB, VAL_UF, ACT_RULE, PM_CFI_OFFSET, true },
};

typedef struct operands {
	uint64_t reg;
	uint64_t val;                   /* offset (two's complement), delta, address or register */
	uint32_t len;                   /* expression length; val is its address */
} operands;

typedef struct interp {
	const pm_mem *mem;
	const pm_cfi_fde *fde;
	uint64_t pc, loc;
	bool past_pc;                   /* loc moved beyond pc: the row is final */
	pm_cfi_row *row;
	pm_cfi_row initial;             /* after the CIE's instructions, for DW_CFA_restore */
	bool have_initial;
	unsigned depth;
	pm_cfi_row saved[PM_CFI_STATE_DEPTH];
} interp;

static bool
factor(int64_t v, int64_t by, bool negate, uint64_t *out)
{
	int64_t r;
	if (__builtin_mul_overflow(v, by, &r) || (negate && r == INT64_MIN))
		return false;
	*out = (uint64_t)(negate ? -r : r);
	return true;
}

static bool
read_delta(pm_cfi_cur *c, const interp *in, uint32_t size, uint64_t *out)
{
	uint64_t d;
	return as_cfi_fixed(c, size, false, &d) &&
	       !__builtin_mul_overflow(d, in->fde->cie.code_align, out);
}

static bool
read_val(pm_cfi_cur *c, const interp *in, uint8_t op, const insn *d, operands *o)
{
	uint64_t u;
	int64_t s;
	switch (d->val) {
	case VAL_NONE:
		return true;
	case VAL_REG:
	case VAL_U:
		return as_cfi_uleb(c, &o->val);
	case VAL_UF:
		return as_cfi_uleb(c, &u) && u <= INT64_MAX &&
		       factor((int64_t)u, in->fde->cie.data_align, d->negate, &o->val);
	case VAL_SF:
		return as_cfi_sleb(c, &s) && factor(s, in->fde->cie.data_align, false, &o->val);
	case VAL_BLOCK:
		if (!as_cfi_uleb(c, &u) || u > UINT32_MAX)
			return false;
		o->val = c->pos;
		o->len = (uint32_t)u;
		return as_cfi_skip(c, u);
	case VAL_DELTA_INLINE:
		return !__builtin_mul_overflow((uint64_t)(op & 0x3f), in->fde->cie.code_align, &o->val);
	case VAL_DELTA1:
		return read_delta(c, in, 1, &o->val);
	case VAL_DELTA2:
		return read_delta(c, in, 2, &o->val);
	case VAL_DELTA4:
		return read_delta(c, in, 4, &o->val);
	case VAL_ADDR:
		return as_cfi_ptr(c, in->fde->cie.fde_enc, 0, &o->val);
	}
	return false;
}

static bool
decode(pm_cfi_cur *c, const interp *in, uint8_t op, const insn *d, operands *o)
{
	o->len = 0;
	o->val = 0;
	o->reg = d->reg == REG_INLINE ? (uint64_t)(op & 0x3f) : 0;
	if (d->reg == REG_ULEB && !as_cfi_uleb(c, &o->reg))
		return false;
	return read_val(c, in, op, d, o);
}

static bool
set_rule(interp *in, const insn *d, const operands *o)
{
	if (o->reg >= PM_DWARF_REGS)
		return true;
	pm_cfi_rule *r = &in->row->reg[o->reg];
	*r = (pm_cfi_rule){ .arg = o->val, .len = o->len, .how = d->how };
	if (d->how == PM_CFI_REG) {
		/* DW_CFA_register: the value is in another register, with no offset. */
		if (o->val >= PM_DWARF_REGS)
			return false;
		r->reg = (uint8_t)o->val;
		r->arg = 0;
	}
	return true;
}

static void
move_loc(interp *in, uint64_t loc)
{
	in->loc = loc;
	in->past_pc = loc > in->pc;
}

static bool
execute(interp *in, const insn *d, const operands *o)
{
	pm_cfi_rule *cfa = &in->row->cfa;
	switch (d->act) {
	case ACT_NOP:
		return true;
	case ACT_ADVANCE:
		if (in->loc + o->val < in->loc)
			return false;
		move_loc(in, in->loc + o->val);
		return true;
	case ACT_SET_LOC:
		move_loc(in, o->val);
		return true;
	case ACT_RULE:
		return set_rule(in, d, o);
	case ACT_RESTORE:
		if (o->reg >= PM_DWARF_REGS)
			return true;
		in->row->reg[o->reg] = in->have_initial ? in->initial.reg[o->reg] : (pm_cfi_rule){ 0 };
		return true;
	case ACT_REMEMBER:
		if (in->depth == PM_CFI_STATE_DEPTH)
			return false;
		in->saved[in->depth++] = *in->row;
		return true;
	case ACT_RESTORE_STATE:
		if (in->depth == 0)
			return false;
		*in->row = in->saved[--in->depth];
		return true;
	case ACT_CFA:
		if (o->reg >= PM_DWARF_REGS)
			return false;
		*cfa = (pm_cfi_rule){ .arg = o->val, .how = PM_CFI_REG, .reg = (uint8_t)o->reg };
		return true;
	case ACT_CFA_REG:
		/* def_cfa_register and def_cfa_offset only amend a register + offset rule. */
		if (cfa->how != PM_CFI_REG || o->reg >= PM_DWARF_REGS)
			return false;
		cfa->reg = (uint8_t)o->reg;
		return true;
	case ACT_CFA_OFFSET:
		if (cfa->how != PM_CFI_REG)
			return false;
		cfa->arg = o->val;
		return true;
	case ACT_CFA_EXPR:
		*cfa = (pm_cfi_rule){ .arg = o->val, .len = o->len, .how = PM_CFI_VAL_EXPR };
		return true;
	}
	return false;
}

static const insn *
describe(uint8_t op)
{
	const insn *d = op >= 0x40 ? &primary[op >> 6] : op < 0x30 ? &extended[op] : NULL;
	return d && d->act != ACT_BAD ? d : NULL;
}

/* Run the instructions in [start, end); each consumes at least a byte, which bounds the loop. */
static pm_cfi_result
run(interp *in, uint64_t start, uint64_t end)
{
	pm_cfi_cur c;
	if (end < start || !as_cfi_cur_init(&c, in->mem, start, end - start))
		return PM_CFI_BAD;
	in->loc = in->fde->begin;
	in->past_pc = false;
	while (!in->past_pc && c.pos < c.end) {
		uint8_t op;
		operands o;
		const insn *d;
		if (!as_cfi_u8(&c, &op) || !(d = describe(op)) || !decode(&c, in, op, d, &o) ||
		    !execute(in, d, &o))
			return PM_CFI_BAD;
	}
	return PM_CFI_OK;
}

pm_cfi_result
as_cfi_run(const pm_mem *mem, const pm_cfi_fde *fde, uint64_t pc, pm_cfi_row *row)
{
	interp in = { .mem = mem, .fde = fde, .pc = pc, .row = row };
	pm_cfi_result r;
	*row = (pm_cfi_row){ .cfa = { 0 } };
	if ((r = run(&in, fde->cie.insn, fde->cie.insn_end)) != PM_CFI_OK)
		return r;
	in.initial = *row;
	in.have_initial = true;
	return run(&in, fde->insn, fde->insn_end);
}
