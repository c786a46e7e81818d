/*
 * as_cfi_expr.c — AS-SAFE DWARF expression stack machine (DWARF 5 §2.5)
 * for the CFA and register rules of call frame information: PLT entries
 * compute their CFA from the pc, signal trampolines find the interrupted
 * registers in the kernel's ucontext.
 *
 * The stack is bounded, so is the number of operations executed (a branch
 * may loop), and a branch may only land inside the expression.  Values are
 * untyped 64-bit words; comparisons and division are signed, as DWARF says.
 */
#include "as_cfi_expr.h"

typedef struct machine {
	const pm_mem *mem;
	const pm_cpu *cpu;
	pm_cfi_cur c;
	uint64_t start;
	unsigned n;
	uint64_t stack[PM_CFI_EXPR_STACK];
} machine;

static bool
push(machine *m, uint64_t v)
{
	if (m->n == PM_CFI_EXPR_STACK)
		return false;
	m->stack[m->n++] = v;
	return true;
}

static bool
pop(machine *m, uint64_t *v)
{
	if (m->n == 0)
		return false;
	*v = m->stack[--m->n];
	return true;
}

/* Entry i from the top (0 is the top). */
static uint64_t *
at(machine *m, uint64_t i)
{
	return i < m->n ? &m->stack[m->n - 1 - i] : NULL;
}

static bool
push_reg(machine *m, uint64_t reg, int64_t offset)
{
	uint64_t v;
	return pm_cfi_reg_value(m->cpu, reg, &v) && push(m, v + (uint64_t)offset);
}

/* DW_OP_const1u … DW_OP_consts, in opcode order; size 0 is LEB128. */
static const struct {
	uint8_t size;
	bool is_signed;
} constants[] = {
	{ 1, false }, { 1, true }, { 2, false }, { 2, true }, { 4, false },
	{ 4, true }, { 8, false }, { 8, true }, { 0, false }, { 0, true },
};

static bool
push_constant(machine *m, uint8_t op)
{
	uint64_t v;
	int64_t s;
	unsigned k = op - DW_OP_const1u;
	if (constants[k].size != 0) {
		if (!as_cfi_fixed(&m->c, constants[k].size, constants[k].is_signed, &v))
			return false;
	} else if (constants[k].is_signed) {
		if (!as_cfi_sleb(&m->c, &s))
			return false;
		v = (uint64_t)s;
	} else if (!as_cfi_uleb(&m->c, &v)) {
		return false;
	}
	return push(m, v);
}

static uint64_t
shift_right_arith(uint64_t a, uint64_t b)
{
	uint64_t fill = (a >> 63) ? ~UINT64_C(0) : 0;
	if (b >= 64)
		return fill;
	return b == 0 ? a : a >> b | fill << (64 - b);
}

/* a is the second entry, b the top; false for division by zero. */
static bool
binary(uint8_t op, uint64_t a, uint64_t b, uint64_t *r)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b;
	switch (op) {
	case DW_OP_and: *r = a & b; return true;
	case DW_OP_or: *r = a | b; return true;
	case DW_OP_xor: *r = a ^ b; return true;
	case DW_OP_plus: *r = a + b; return true;
	case DW_OP_minus: *r = a - b; return true;
	case DW_OP_mul: *r = a * b; return true;
	case DW_OP_shl: *r = b >= 64 ? 0 : a << b; return true;
	case DW_OP_shr: *r = b >= 64 ? 0 : a >> b; return true;
	case DW_OP_shra: *r = shift_right_arith(a, b); return true;
	case DW_OP_eq: *r = sa == sb; return true;
	case DW_OP_ne: *r = sa != sb; return true;
	case DW_OP_ge: *r = sa >= sb; return true;
	case DW_OP_gt: *r = sa > sb; return true;
	case DW_OP_le: *r = sa <= sb; return true;
	case DW_OP_lt: *r = sa < sb; return true;
	case DW_OP_mod:
		if (b == 0)
			return false;
		*r = a % b;
		return true;
	case DW_OP_div:
		if (b == 0)
			return false;
		/* INT64_MIN / -1 does not fit: the wrapped result, INT64_MIN, is what remains. */
		*r = (sa == INT64_MIN && sb == -1) ? a : (uint64_t)(sa / sb);
		return true;
	}
	return false;
}

static bool
apply_binary(machine *m, uint8_t op)
{
	uint64_t a, b, r;
	return pop(m, &b) && pop(m, &a) && binary(op, a, b, &r) && push(m, r);
}

static bool
deref(machine *m, uint8_t size)
{
	uint64_t addr;
	uint8_t b[8];
	if (size == 0 || size > 8 || !pop(m, &addr) || !pm_mem_read(m->mem, addr, b, size))
		return false;
	uint64_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | b[i];
	return push(m, v);
}

/* DW_OP_skip and DW_OP_bra: a signed 2-byte offset from the end of the operand. */
static bool
branch(machine *m, bool taken_if_nonzero)
{
	uint64_t off, cond = 1;
	if (!as_cfi_fixed(&m->c, 2, true, &off) || (taken_if_nonzero && !pop(m, &cond)))
		return false;
	if (cond == 0)
		return true;
	uint64_t target = m->c.pos + off;
	if (target < m->start || target > m->c.end)
		return false;
	m->c.pos = target;
	return true;
}

static bool
stack_op(machine *m, uint8_t op)
{
	uint64_t *top = at(m, 0), *second = at(m, 1), *third = at(m, 2), v, idx;
	switch (op) {
	case DW_OP_dup: return top && push(m, *top);
	case DW_OP_drop: return pop(m, &v);
	case DW_OP_over: return second && push(m, *second);
	case DW_OP_pick: {
		uint8_t i;
		if (!as_cfi_u8(&m->c, &i))
			return false;
		idx = i;
		return at(m, idx) && push(m, *at(m, idx));
	}
	case DW_OP_swap:
		if (!second)
			return false;
		v = *top;
		*top = *second;
		*second = v;
		return true;
	case DW_OP_rot:
		/* The top moves to third place; the others move up. */
		if (!third)
			return false;
		v = *top;
		*top = *second;
		*second = *third;
		*third = v;
		return true;
	}
	return false;
}

static bool
unary(machine *m, uint8_t op)
{
	uint64_t *top = at(m, 0), u;
	if (!top)
		return false;
	switch (op) {
	case DW_OP_abs: *top = (int64_t)*top < 0 ? 0 - *top : *top; return true;
	case DW_OP_neg: *top = 0 - *top; return true;
	case DW_OP_not: *top = ~*top; return true;
	case DW_OP_plus_uconst:
		if (!as_cfi_uleb(&m->c, &u))
			return false;
		*top += u;
		return true;
	}
	return false;
}

static bool
reg_op(machine *m, uint8_t op)
{
	uint64_t reg;
	int64_t off = 0;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31)
		return push_reg(m, op - DW_OP_reg0, 0);
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		return as_cfi_sleb(&m->c, &off) && push_reg(m, op - DW_OP_breg0, off);
	if (!as_cfi_uleb(&m->c, &reg))
		return false;
	return (op == DW_OP_regx || as_cfi_sleb(&m->c, &off)) && push_reg(m, reg, off);
}

static bool
execute(machine *m, uint8_t op)
{
	uint64_t v;
	uint8_t size;
	if (op >= DW_OP_lit0 && op <= DW_OP_lit31)
		return push(m, op - DW_OP_lit0);
	if ((op >= DW_OP_reg0 && op <= DW_OP_breg31) || op == DW_OP_regx || op == DW_OP_bregx)
		return reg_op(m, op);
	if (op >= DW_OP_const1u && op <= DW_OP_consts)
		return push_constant(m, op);
	switch (op) {
	case DW_OP_addr: return as_cfi_fixed(&m->c, 8, false, &v) && push(m, v);
	case DW_OP_deref: return deref(m, 8);
	case DW_OP_deref_size: return as_cfi_u8(&m->c, &size) && deref(m, size);
	case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_pick: case DW_OP_swap:
	case DW_OP_rot:
		return stack_op(m, op);
	case DW_OP_abs: case DW_OP_neg: case DW_OP_not: case DW_OP_plus_uconst:
		return unary(m, op);
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
	case DW_OP_or: case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
	case DW_OP_lt: case DW_OP_ne:
		return apply_binary(m, op);
	case DW_OP_skip: return branch(m, false);
	case DW_OP_bra: return branch(m, true);
	case DW_OP_nop: return true;
	}
	return false;
}

bool
as_cfi_expr_eval(const pm_mem *mem, const pm_cpu *cpu, uint64_t addr, uint32_t len,
                 const uint64_t *initial, uint64_t *out)
{
	machine m = { .mem = mem, .cpu = cpu, .start = addr, .n = 0 };
	if (!as_cfi_cur_init(&m.c, mem, addr, len) || (initial && !push(&m, *initial)))
		return false;
	for (unsigned steps = 0; m.c.pos < m.c.end; steps++) {
		uint8_t op;
		if (steps == PM_CFI_EXPR_STEPS || !as_cfi_u8(&m.c, &op) || !execute(&m, op))
			return false;
	}
	return pop(&m, out);
}
