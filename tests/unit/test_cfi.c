/*
 * test_cfi.c — the AS-safe DWARF CFI step (reporter/unwind/as_cfi.h).
 *
 * Most tests build .eh_frame_hdr, .eh_frame and a stack by hand in a fake
 * address space (one buffer at BASE; reads elsewhere fail) and check the
 * caller's registers exactly.  Register numbers are x86_64's (rsp 7, rbp 6,
 * return address 16).  The live tests unwind this very process, through
 * functions built without frame pointers and through libc's qsort.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "reporter/unwind/arch.h"
#include "reporter/unwind/as_cfi.h"
#include "reporter/unwind/as_cfi_cache.h"
#include "reporter/unwind/as_cfi_expr.h"
#include "reporter/unwind/as_cfi_prog.h"
#include "reporter/memory/as_mem.h"

/* ---- a fake address space ---- */

enum {
	BASE = 0x10000000,
	SPACE = 0x10000,
	HDR = BASE,                     /* .eh_frame_hdr */
	EH = BASE + 0x1000,             /* .eh_frame */
	SLOTS = BASE + 0x7000,          /* pointers DW_EH_PE_indirect reads */
	STACK = BASE + 0x8000,
	F = 0x401000,                   /* code addresses are never read */
	MAX_TABLE = 64,
};

static struct {
	uint8_t bytes[SPACE];
	unsigned reads;
	unsigned fail_parity;           /* 0: reads succeed; 1 or 2: every other read fails */
} space;

static bool
space_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	(void)ctx;
	unsigned nth = space.reads++;
	if (space.fail_parity && nth % 2 == space.fail_parity - 1)
		return false;
	if (addr < BASE || addr - BASE > SPACE || n > SPACE - (addr - BASE))
		return false;
	memcpy(dst, space.bytes + (addr - BASE), n);
	return true;
}

static const pm_mem mem = { .read = space_read, .ctx = NULL };

static uint64_t eh_at, slot_at;
static struct {
	uint64_t loc, fde;
} table[MAX_TABLE];
static unsigned table_n;

static void
world(void)
{
	memset(&space, 0, sizeof space);
	eh_at = EH;
	slot_at = SLOTS;
	table_n = 0;
}

static void
poke(uint64_t addr, const void *p, size_t n)
{
	cr_assert(addr >= BASE && addr - BASE + n <= SPACE, "poke outside the space at %#lx",
	          (unsigned long)addr);
	memcpy(space.bytes + (addr - BASE), p, n);
}

static void
poke_u64(uint64_t addr, uint64_t v)
{
	poke(addr, &v, sizeof v);
}

/* ---- byte encoders ---- */

typedef struct bytes {
	const uint8_t *p;
	size_t n;
} bytes;

/* BY in static tables, B in expressions. */
#define BY(...) { (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }) }
#define B(...) ((bytes)BY(__VA_ARGS__))
#define NO_BY { NULL, 0 }
#define NO_BYTES ((bytes)NO_BY)
#define LIT(n) (DW_OP_lit0 + (n))
#define REG(n) (DW_OP_reg0 + (n))
#define BREG(n) (DW_OP_breg0 + (n))

static size_t
enc_uleb(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		out[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static size_t
enc_sleb(uint8_t *out, int64_t v)
{
	size_t n = 0;
	for (;;) {
		uint8_t b = v & 0x7f;
		v >>= 7;
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
			out[n++] = b;
			return n;
		}
		out[n++] = b | 0x80;
	}
}

static void
emit(uint64_t *pos, const void *p, size_t n)
{
	poke(*pos, p, n);
	*pos += n;
}

static void
emit_u(uint64_t *pos, uint64_t v, size_t n)
{
	uint8_t b[8];
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	emit(pos, b, n);
}

static void
emit_uleb(uint64_t *pos, uint64_t v)
{
	uint8_t b[10];
	emit(pos, b, enc_uleb(b, v));
}

static void
emit_sleb(uint64_t *pos, int64_t v)
{
	uint8_t b[10];
	emit(pos, b, enc_sleb(b, v));
}

/* A pointer that decodes to v under enc (datarel: from HDR; textrel/funcrel: stored raw). */
static void
emit_ptr(uint64_t *pos, uint8_t enc, uint64_t v)
{
	if ((enc & 0x70) == DW_EH_PE_aligned)
		while (*pos & 7)
			emit_u(pos, 0, 1);
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v -= *pos;
	if ((enc & 0x70) == DW_EH_PE_datarel)
		v -= HDR;
	switch (enc & 0x0f) {
	case DW_EH_PE_uleb128: emit_uleb(pos, v); break;
	case DW_EH_PE_sleb128: emit_sleb(pos, (int64_t)v); break;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: emit_u(pos, v, 2); break;
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8: emit_u(pos, v, 8); break;
	default: emit_u(pos, v, 4); break;
	}
}

/* ---- .eh_frame entries ---- */

typedef struct cie_spec {
	uint8_t version;
	const char *aug;
	uint64_t code_align;
	int64_t data_align;
	uint8_t ra;
	uint8_t fde_enc, lsda_enc, pers_enc;
	bool is64;
	bytes init;
} cie_spec;

/* What GCC emits on x86_64: CFA = rsp + 8, return address at CFA - 8. */
static const uint8_t std_init[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1 };

static cie_spec
std_cie(void)
{
	return (cie_spec){
		.version = 1, .aug = "zR", .code_align = 1, .data_align = -8, .ra = 16,
		.fde_enc = DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		.lsda_enc = DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		.pers_enc = DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		.init = { std_init, sizeof std_init },
	};
}

static uint64_t
entry_open(uint64_t *pos, bool is64)
{
	uint64_t start = *pos;
	if (is64)
		emit_u(pos, 0xffffffff, 4);
	emit_u(pos, 0, is64 ? 8 : 4);
	return start;
}

static void
entry_close(uint64_t start, bool is64, uint64_t end)
{
	uint64_t len_at = start + (is64 ? 4 : 0), body = len_at + (is64 ? 8 : 4);
	emit_u(&len_at, end - body, is64 ? 8 : 4);
}

/* Augmentation data after its one-byte ULEB128 length: the CIE's encodings and
 * personality, or an FDE's LSDA pointer. */
static void
emit_aug_data(uint64_t *pos, const cie_spec *c, bool for_fde)
{
	uint64_t len_at = *pos;
	emit_u(pos, 0, 1);
	for (const char *a = c->aug + 1; *a; a++) {
		if (for_fde) {
			if (*a == 'L')
				emit_ptr(pos, c->lsda_enc, 0x500000);
			continue;
		}
		if (*a == 'R')
			emit_u(pos, c->fde_enc, 1);
		if (*a == 'L')
			emit_u(pos, c->lsda_enc, 1);
		if (*a == 'P') {
			emit_u(pos, c->pers_enc, 1);
			emit_ptr(pos, c->pers_enc & 0x7f, SLOTS + 0xff8);
		}
	}
	uint64_t len = *pos - len_at - 1;
	cr_assert(len < 0x80);
	emit_u(&len_at, len, 1);
}

static uint64_t
emit_cie(const cie_spec *c)
{
	uint64_t start = entry_open(&eh_at, c->is64);
	emit_u(&eh_at, 0, c->is64 ? 8 : 4);
	emit_u(&eh_at, c->version, 1);
	emit(&eh_at, c->aug, strlen(c->aug) + 1);
	if (c->version == 4) {
		emit_u(&eh_at, 8, 1);
		emit_u(&eh_at, 0, 1);
	}
	emit_uleb(&eh_at, c->code_align);
	emit_sleb(&eh_at, c->data_align);
	if (c->version == 1)
		emit_u(&eh_at, c->ra, 1);
	else
		emit_uleb(&eh_at, c->ra);
	if (c->aug[0] == 'z')
		emit_aug_data(&eh_at, c, false);
	if (c->init.n)
		emit(&eh_at, c->init.p, c->init.n);
	entry_close(start, c->is64, eh_at);
	return start;
}

/* An FDE of CIE `cie` (described by c), listed in the search table. */
static uint64_t
emit_fde(const cie_spec *c, uint64_t cie, uint64_t begin, uint64_t range, bytes insns)
{
	uint64_t start = entry_open(&eh_at, c->is64);
	emit_u(&eh_at, eh_at - cie, c->is64 ? 8 : 4);
	if (c->fde_enc & DW_EH_PE_indirect) {
		poke_u64(slot_at, begin);
		emit_ptr(&eh_at, c->fde_enc & 0x7f, slot_at);
		slot_at += 8;
	} else {
		emit_ptr(&eh_at, c->fde_enc, begin);
	}
	emit_ptr(&eh_at, c->fde_enc & 0x0f, range);
	if (c->aug[0] == 'z')
		emit_aug_data(&eh_at, c, true);
	if (insns.n)
		emit(&eh_at, insns.p, insns.n);
	entry_close(start, c->is64, eh_at);
	cr_assert(table_n < MAX_TABLE);
	table[table_n].loc = begin;
	table[table_n++].fde = start;
	return start;
}

/* The zero terminator and an .eh_frame_hdr with the table sorted. */
static void
finish_with(uint8_t count_enc, uint8_t table_enc)
{
	emit_u(&eh_at, 0, 4);
	for (unsigned i = 1; i < table_n; i++)
		for (unsigned j = i; j > 0 && table[j - 1].loc > table[j].loc; j--) {
			uint64_t loc = table[j].loc, fde = table[j].fde;
			table[j] = table[j - 1];
			table[j - 1].loc = loc;
			table[j - 1].fde = fde;
		}
	uint64_t pos = HDR;
	emit(&pos, (const uint8_t[]){ 1, DW_EH_PE_pcrel | DW_EH_PE_sdata4, count_enc, table_enc }, 4);
	emit_ptr(&pos, DW_EH_PE_pcrel | DW_EH_PE_sdata4, EH);
	if (count_enc == DW_EH_PE_omit)
		return;
	emit_ptr(&pos, count_enc, table_n);
	if (table_enc == DW_EH_PE_omit)
		return;
	for (unsigned i = 0; i < table_n; i++) {
		emit_ptr(&pos, table_enc, table[i].loc);
		emit_ptr(&pos, table_enc, table[i].fde);
	}
}

static void
finish(void)
{
	finish_with(DW_EH_PE_udata4, DW_EH_PE_datarel | DW_EH_PE_sdata4);
}

/* ---- registers ---- */

static pm_cpu
regs_at(uint64_t pc, uint64_t sp, bool exact)
{
	pm_cpu c = { .pc = pc, .signal_frame = exact };
	for (unsigned i = 0; i < PM_DWARF_REGS; i++)
		c.r[i] = 0x1111u * (i + 1);
	c.r[PM_DWARF_SP] = sp;
	c.r[PM_DWARF_RA] = pc;
	c.valid = (UINT64_C(1) << PM_DWARF_REGS) - 1;
	return c;
}

/* The registers a plain frame's caller has: CFA as sp, the return address as pc. */
static pm_cpu
caller_of(const pm_cpu *callee, uint64_t cfa, uint64_t ra)
{
	pm_cpu c = *callee;
	c.r[PM_DWARF_SP] = cfa;
	c.r[PM_DWARF_RA] = ra;
	c.pc = ra;
	c.signal_frame = false;
	return c;
}

static void
expect_cpu(const pm_cpu *got, const pm_cpu *want, const char *what)
{
	cr_expect_eq(got->valid, want->valid, "%s: valid %#lx, want %#lx", what, (unsigned long)got->valid,
	             (unsigned long)want->valid);
	cr_expect_eq(got->pc, want->pc, "%s: pc %#lx, want %#lx", what, (unsigned long)got->pc,
	             (unsigned long)want->pc);
	cr_expect_eq(got->signal_frame, want->signal_frame, "%s: signal_frame", what);
	for (unsigned i = 0; i < PM_DWARF_REGS; i++)
		if (want->valid >> i & 1)
			cr_expect_eq(got->r[i], want->r[i], "%s: r%u = %#lx, want %#lx", what, i,
			             (unsigned long)got->r[i], (unsigned long)want->r[i]);
}

static bool
same_cpu(const pm_cpu *a, const pm_cpu *b)
{
	return memcmp(a->r, b->r, sizeof a->r) == 0 && a->valid == b->valid && a->pc == b->pc &&
	       a->signal_frame == b->signal_frame;
}

static pm_cfi_result
step(pm_cpu *cpu)
{
	return as_cfi_step(&mem, HDR, cpu);
}

static void
expect_step(pm_cpu cpu, const pm_cpu *want, const char *what)
{
	pm_cfi_result r = step(&cpu);
	cr_expect_eq(r, PM_CFI_OK, "%s: step returned %d", what, (int)r);
	if (r == PM_CFI_OK)
		expect_cpu(&cpu, want, what);
}

/* A step that must fail with `want`, leaving the registers alone. */
static void
expect_fail(pm_cfi_result want, pm_cpu cpu, const char *what)
{
	pm_cpu before = cpu;
	pm_cfi_result r = step(&cpu);
	cr_expect_eq(r, want, "%s: step returned %d, want %d", what, (int)r, (int)want);
	cr_expect(same_cpu(&cpu, &before), "%s: registers changed", what);
}

/* ---- a classic frame-pointer function, with an epilogue in the middle ---- */

/*
 *   F+0x00 push %rbp            F+0x1e pop %rbp
 *   F+0x01 mov %rsp,%rbp        F+0x1f ret
 *   F+0x04 body                 F+0x20 more body (after remember/restore_state)
 */
static void
build_classic(bool is64)
{
	world();
	cie_spec c = std_cie();
	c.is64 = is64;
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x30,
	         B(DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16, DW_CFA_offset | 6, 2,
	           DW_CFA_advance_loc | 3, DW_CFA_def_cfa_register, 6,
	           DW_CFA_advance_loc | 0x1b, DW_CFA_remember_state, DW_CFA_def_cfa, 7, 8,
	           DW_CFA_restore | 6, DW_CFA_advance_loc | 1, DW_CFA_restore_state));
	finish();
}

typedef struct classic_case {
	uint64_t off;
	bool exact;
	int cfa_from_rbp;               /* CFA = rbp + 16 (body) instead of rsp + n */
	uint64_t rsp_plus;
	bool rbp_saved;                 /* rbp saved at CFA - 16 */
} classic_case;

static const classic_case classic_cases[] = {
	{ 0x00, true, 0, 8, false },    /* before push */
	{ 0x01, true, 0, 16, true },    /* after push */
	{ 0x04, true, 1, 0, true },     /* body */
	{ 0x10, false, 1, 0, true },    /* a return address in the body */
	{ 0x1e, true, 1, 0, true },     /* at pop */
	{ 0x1f, true, 0, 8, false },    /* at ret: inside remember_state */
	{ 0x20, false, 0, 8, false },   /* return address just after ret: looked up at ret */
	{ 0x20, true, 1, 0, true },     /* after restore_state */
	{ 0x2f, true, 1, 0, true },
};

static void
run_classic(bool is64)
{
	build_classic(is64);
	for (size_t i = 0; i < sizeof classic_cases / sizeof classic_cases[0]; i++) {
		const classic_case *k = &classic_cases[i];
		uint64_t rsp = STACK + 0x100, rbp = STACK + 0x140;
		pm_cpu cpu = regs_at(F + k->off, rsp, k->exact);
		cpu.r[6] = rbp;
		uint64_t cfa = k->cfa_from_rbp ? rbp + 16 : rsp + k->rsp_plus;
		uint64_t ra = 0x402000 + i;
		poke_u64(cfa - 8, ra);
		pm_cpu want = caller_of(&cpu, cfa, ra);
		if (k->rbp_saved) {
			poke_u64(cfa - 16, 0xcafe0000 + i);
			want.r[6] = 0xcafe0000 + i;
		}
		char what[32];
		snprintf(what, sizeof what, "case %zu (F+%#lx)", i, (unsigned long)k->off);
		expect_step(cpu, &want, what);
	}
}

Test(cfi, frame_pointer_prologue_body_epilogue)
{
	run_classic(false);
}

/* Two threads stopped at the same return address: the second step takes the
 * row the first one found (it reads only its own stack), each gets its own
 * caller, exactly as without the cache; a cleared cache finds the row again. */
Test(cfi, cached_rows_serve_every_thread_at_the_same_pc)
{
	build_classic(true);
	pm_cfi_cache *cache = calloc(1, as_cfi_cache_size());
	cr_assert(cache != NULL);
	pm_cpu threads[2], want[2];
	for (int t = 0; t < 2; t++) {
		uint64_t rsp = STACK + 0x100 + 0x100 * (uint64_t)t, rbp = rsp + 0x40;
		threads[t] = regs_at(F + 0x10, rsp, false);
		threads[t].r[6] = rbp;
		poke_u64(rbp + 8, 0x402000 + (uint64_t)t);
		poke_u64(rbp, 0xcafe0000 + (uint64_t)t);
		want[t] = threads[t];
		cr_assert_eq(step(&want[t]), PM_CFI_OK);
	}
	unsigned reads[3];
	for (int round = 0; round < 3; round++) {
		if (round == 2)
			as_cfi_cache_clear(cache);
		pm_cpu cpu = threads[round % 2];
		unsigned before = space.reads;
		cr_assert_eq(as_cfi_step_cached(cache, &mem, HDR, &cpu), PM_CFI_OK);
		reads[round] = space.reads - before;
		expect_cpu(&cpu, &want[round % 2], round == 1 ? "second thread" : "first thread");
	}
	cr_expect_lt(reads[1], reads[0], "the second thread read %u times, the first %u", reads[1], reads[0]);
	cr_expect_eq(reads[2], reads[0], "after clearing, the row is found again");
	free(cache);
}

Test(cfi, dwarf64_lengths)
{
	run_classic(true);
}

/* ---- every other call frame instruction ---- */

Test(cfi, register_rule_kinds)
{
	world();
	cie_spec c = std_cie();
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x10,
	         B(DW_CFA_def_cfa, 7, 32,
	           DW_CFA_val_offset, 3, 2,                     /* rbx = CFA - 16 */
	           DW_CFA_val_offset_sf, 12, 0x7f,              /* r12 = CFA + 8 */
	           DW_CFA_val_expression, 13, 2, LIT(5), DW_OP_plus, /* r13 = CFA + 5 */
	           DW_CFA_expression, 14, 2, LIT(16), DW_OP_minus,   /* r14 at CFA - 16 */
	           DW_CFA_register, 15, 1,                      /* r15 = rdx */
	           DW_CFA_undefined, 0,                         /* rax unknown */
	           DW_CFA_offset | 2, 5, DW_CFA_same_value, 2,   /* rcx kept after all */
	           DW_CFA_offset_extended, 5, 3,                /* rdi at CFA - 24 */
	           DW_CFA_offset_extended_sf, 4, 0x7c,          /* rsi at CFA + 32 */
	           DW_CFA_GNU_negative_offset_extended, 6, 5,   /* rbp at CFA + 40 */
	           DW_CFA_GNU_args_size, 16, DW_CFA_nop, DW_CFA_nop));
	finish();
	uint64_t rsp = STACK + 0x100, cfa = rsp + 32;
	pm_cpu cpu = regs_at(F + 4, rsp, false);
	poke_u64(cfa - 8, 0x403000);
	poke_u64(cfa - 16, 0xe14);
	poke_u64(cfa - 24, 0xd15);
	poke_u64(cfa + 32, 0x515);
	poke_u64(cfa + 40, 0xb0b);
	pm_cpu want = caller_of(&cpu, cfa, 0x403000);
	want.valid &= ~UINT64_C(1);
	want.r[3] = cfa - 16;
	want.r[12] = cfa + 8;
	want.r[13] = cfa + 5;
	want.r[14] = 0xe14;
	want.r[15] = cpu.r[1];
	want.r[5] = 0xd15;
	want.r[4] = 0x515;
	want.r[6] = 0xb0b;
	expect_step(cpu, &want, "rule kinds");
}

/* arm64 glibc's _dl_runtime_resolve: the PLT pushed 16 bytes, the CFA is left
 * at the pushed sp and the return address is saved at CFA + 8: the caller's
 * sp is past that slot, not the CFA (here in x86_64's numbering). */
Test(cfi, return_address_above_the_cfa)
{
	world();
	cie_spec c = std_cie();
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x10,
	         B(DW_CFA_def_cfa, 7, 0,
	           DW_CFA_offset_extended_sf, 16, 0x7f)); /* return address at CFA + 8 */
	finish();
	uint64_t rsp = STACK + 0x100;
	pm_cpu cpu = regs_at(F + 4, rsp, false);
	poke_u64(rsp + 8, 0x404000);
	pm_cpu want = caller_of(&cpu, rsp + 16, 0x404000);
	expect_step(cpu, &want, "return address above the CFA");
}

Test(cfi, restore_returns_to_the_cie_rule)
{
	world();
	cie_spec c = std_cie();
	c.init = B(DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1, DW_CFA_offset | 3, 2);
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x10,
	         B(DW_CFA_offset_extended, 3, 3, DW_CFA_advance_loc | 4, DW_CFA_restore | 3,
	           DW_CFA_offset | 12, 4, DW_CFA_advance_loc | 4, DW_CFA_restore_extended, 12));
	finish();
	uint64_t rsp = STACK + 0x100, cfa = rsp + 8;
	poke_u64(cfa - 8, 0x404000);
	poke_u64(cfa - 16, 0xb16);
	poke_u64(cfa - 24, 0xb24);
	poke_u64(cfa - 32, 0xc32);
	pm_cpu cpu = regs_at(F + 2, rsp, true);
	pm_cpu want = caller_of(&cpu, cfa, 0x404000);
	want.r[3] = 0xb24;
	expect_step(cpu, &want, "FDE rule");
	cpu.pc = F + 5;
	want.r[3] = 0xb16;
	want.r[12] = 0xc32;
	expect_step(cpu, &want, "restored to the CIE rule");
	cpu.pc = F + 9;
	want.r[12] = cpu.r[12];
	expect_step(cpu, &want, "restored to no rule");
}

Test(cfi, advance_and_cfa_forms)
{
	world();
	cie_spec c = std_cie();
	c.fde_enc = DW_EH_PE_udata4; /* set_loc's operand is then the plain address */
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x30000,
	         B(DW_CFA_advance_loc1, 0x10, DW_CFA_def_cfa_sf, 7, 0x7e,      /* rsp + 16 */
	           DW_CFA_advance_loc2, 0x00, 0x01, DW_CFA_def_cfa_offset_sf, 0x7d, /* rsp + 24 */
	           DW_CFA_advance_loc4, 0x00, 0x00, 0x01, 0x00, DW_CFA_def_cfa, 6, 32, /* rbp + 32 */
	           DW_CFA_set_loc, 0x00, 0x10, 0x42, 0x00, DW_CFA_def_cfa_register, 7)); /* rsp + 32 */
	finish();
	static const struct {
		uint64_t off;
		bool from_rbp;
		uint64_t plus;
	} cases[] = {
		{ 0x0f, false, 8 }, { 0x10, false, 16 }, { 0x10f, false, 16 }, { 0x110, false, 24 },
		{ 0x1010f, false, 24 }, { 0x10110, true, 32 }, { 0x1ffff, true, 32 },
		{ 0x20000, false, 32 }, { 0x2ffff, false, 32 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t rsp = STACK + 0x100, rbp = STACK + 0x200;
		pm_cpu cpu = regs_at(F + cases[i].off, rsp, true);
		cpu.r[6] = rbp;
		uint64_t cfa = (cases[i].from_rbp ? rbp : rsp) + cases[i].plus;
		poke_u64(cfa - 8, 0x405000 + i);
		pm_cpu want = caller_of(&cpu, cfa, 0x405000 + i);
		char what[32];
		snprintf(what, sizeof what, "F+%#lx", (unsigned long)cases[i].off);
		expect_step(cpu, &want, what);
	}
}

Test(cfi, code_alignment_factors_advances)
{
	world();
	cie_spec c = std_cie();
	c.code_align = 4;
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x20, B(DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset, 16));
	finish();
	uint64_t rsp = STACK + 0x100;
	poke_u64(rsp, 0x406000);
	poke_u64(rsp + 8, 0x406001);
	pm_cpu cpu = regs_at(F + 7, rsp, true);
	pm_cpu want = caller_of(&cpu, rsp + 8, 0x406000);
	expect_step(cpu, &want, "before F+8");
	cpu.pc = F + 8;
	want = caller_of(&cpu, rsp + 16, 0x406001);
	expect_step(cpu, &want, "from F+8");
}

Test(cfi, remember_state_nesting_bound)
{
	uint8_t insns[2 * PM_CFI_STATE_DEPTH + 2];
	for (int depth = PM_CFI_STATE_DEPTH; depth <= PM_CFI_STATE_DEPTH + 1; depth++) {
		world();
		cie_spec c = std_cie();
		uint64_t cie = emit_cie(&c);
		memset(insns, DW_CFA_remember_state, (size_t)depth);
		memset(insns + depth, DW_CFA_restore_state, (size_t)depth);
		emit_fde(&c, cie, F, 0x10, (bytes){ insns, 2 * (size_t)depth });
		finish();
		uint64_t rsp = STACK + 0x100;
		poke_u64(rsp, 0x407000);
		pm_cpu cpu = regs_at(F + 1, rsp, true);
		if (depth == PM_CFI_STATE_DEPTH) {
			pm_cpu want = caller_of(&cpu, rsp + 8, 0x407000);
			expect_step(cpu, &want, "at the bound");
		} else {
			expect_fail(PM_CFI_BAD, cpu, "past the bound");
		}
	}
}

Test(cfi, restore_state_without_remember)
{
	world();
	cie_spec c = std_cie();
	emit_fde(&c, emit_cie(&c), F, 0x10, B(DW_CFA_restore_state));
	finish();
	expect_fail(PM_CFI_BAD, regs_at(F + 1, STACK + 0x100, true), "empty state stack");
}

/* ---- PLT: the CFA depends on where in its 16-byte slot the pc is ---- */

Test(cfi, plt_cfa_expression)
{
	world();
	cie_spec c = std_cie();
	uint64_t cie = emit_cie(&c), plt = 0x401100;
	/* What ld writes for .plt: rsp + 8, plus 8 once `push $n` (slot offset 11 on) ran. */
	emit_fde(&c, cie, plt, 0x40,
	         B(DW_CFA_def_cfa_expression, 11, BREG(7), 8, BREG(16), 0, LIT(15),
	           DW_OP_and, LIT(11), DW_OP_ge, LIT(3), DW_OP_shl, DW_OP_plus));
	finish();
	for (uint64_t off = 0; off < 16; off++) {
		uint64_t rsp = STACK + 0x100, cfa = rsp + (off >= 11 ? 16 : 8);
		memset(space.bytes + (rsp - BASE), 0, 16);
		poke_u64(cfa - 8, 0x408000 + off);
		pm_cpu cpu = regs_at(plt + 0x20 + off, rsp, true);
		pm_cpu want = caller_of(&cpu, cfa, 0x408000 + off);
		char what[32];
		snprintf(what, sizeof what, "slot offset %lu", (unsigned long)off);
		expect_step(cpu, &want, what);
	}
}

/* ---- the kernel's signal frame, described like glibc's __restore_rt ---- */

static const int dwarf_greg[17] = {
	REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
};

Test(cfi, signal_frame_from_ucontext)
{
	world();
	cie_spec c = std_cie();
	c.aug = "zRS";
	c.init = NO_BYTES;
	uint64_t cie = emit_cie(&c);
	uint8_t insns[256];
	size_t n = 0;
	/* CFA = the interrupted rsp; each register at its slot of uc_mcontext.gregs. */
	insns[n++] = DW_CFA_def_cfa_expression;
	uint8_t *len = &insns[n++];
	insns[n++] = BREG(7);
	n += enc_sleb(&insns[n], (int64_t)offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP]));
	insns[n++] = DW_OP_deref;
	*len = (uint8_t)(&insns[n] - len - 1);
	for (unsigned r = 0; r < 17; r++) {
		insns[n++] = DW_CFA_expression;
		insns[n++] = (uint8_t)r;
		len = &insns[n++];
		insns[n++] = BREG(7);
		n += enc_sleb(&insns[n], (int64_t)offsetof(ucontext_t, uc_mcontext.gregs[dwarf_greg[r]]));
		*len = (uint8_t)(&insns[n] - len - 1);
	}
	uint64_t restore_rt = 0x401200;
	emit_fde(&c, cie, restore_rt - 1, 0x10, (bytes){ insns, n });
	finish();

	ucontext_t uc;
	memset(&uc, 0, sizeof uc);
	for (unsigned r = 0; r < 17; r++)
		uc.uc_mcontext.gregs[dwarf_greg[r]] = (greg_t)(0x5000 + r);
	uc.uc_mcontext.gregs[REG_RSP] = STACK + 0x800;
	uc.uc_mcontext.gregs[REG_RIP] = 0x409123;
	uint64_t sp = STACK + 0x200;
	poke(sp, &uc, sizeof uc);

	/* The handler returned to __restore_rt: a return address like any other. */
	pm_cpu cpu = regs_at(restore_rt, sp, false);
	pm_cpu want = caller_of(&cpu, STACK + 0x800, 0x409123);
	for (unsigned r = 0; r < 16; r++)
		if (r != PM_DWARF_SP)
			want.r[r] = 0x5000 + r;
	want.signal_frame = true;
	expect_step(cpu, &want, "signal frame");
}

/* ---- the outermost frame ---- */

Test(cfi, undefined_return_address_ends_the_walk)
{
	world();
	cie_spec c = std_cie();
	emit_fde(&c, emit_cie(&c), F, 0x10, B(DW_CFA_undefined, 16));
	finish();
	pm_cpu cpu = regs_at(F + 4, STACK + 0x100, false);
	pm_cpu want = caller_of(&cpu, STACK + 0x108, 0);
	want.valid &= ~(UINT64_C(1) << PM_DWARF_RA);
	expect_step(cpu, &want, "outermost");
}

/* ---- return addresses look up pc - 1 ---- */

Test(cfi, return_address_past_a_noreturn_function)
{
	world();
	cie_spec c = std_cie();
	uint64_t cie = emit_cie(&c);
	/* abort()-like F..F+0x10 whose last instruction is a call; G starts right after. */
	emit_fde(&c, cie, F, 0x10, B(DW_CFA_advance_loc | 4, DW_CFA_def_cfa_offset, 16));
	emit_fde(&c, cie, F + 0x10, 0x10, B(DW_CFA_def_cfa_offset, 32));
	finish();
	uint64_t rsp = STACK + 0x100;
	poke_u64(rsp + 8, 0x40a000);
	poke_u64(rsp + 24, 0x40a001);
	pm_cpu cpu = regs_at(F + 0x10, rsp, false);
	pm_cpu want = caller_of(&cpu, rsp + 16, 0x40a000);
	expect_step(cpu, &want, "return address at the end of F");
	cpu.signal_frame = true;
	want = caller_of(&cpu, rsp + 32, 0x40a001);
	expect_step(cpu, &want, "exact pc at the start of G");
}

/* ---- pointer encodings and CIE forms ---- */

typedef struct form_case {
	const char *name;
	uint8_t version;
	const char *aug;
	uint8_t fde_enc;
	bool is64;
	pm_cfi_result want;
} form_case;

static const form_case forms[] = {
	{ "pcrel sdata4", 1, "zR", DW_EH_PE_pcrel | DW_EH_PE_sdata4, false, PM_CFI_OK },
	{ "pcrel sdata8", 1, "zR", DW_EH_PE_pcrel | DW_EH_PE_sdata8, false, PM_CFI_OK },
	{ "sdata2", 1, "zR", DW_EH_PE_sdata2, false, PM_CFI_OK },
	{ "sdata8", 1, "zR", DW_EH_PE_sdata8, false, PM_CFI_OK },
	{ "udata8", 1, "zR", DW_EH_PE_udata8, false, PM_CFI_OK },
	{ "udata4", 1, "zR", DW_EH_PE_udata4, false, PM_CFI_OK },
	{ "udata2", 1, "zR", DW_EH_PE_udata2, false, PM_CFI_OK },
	{ "uleb128", 1, "zR", DW_EH_PE_uleb128, false, PM_CFI_OK },
	{ "sleb128", 1, "zR", DW_EH_PE_sleb128, false, PM_CFI_OK },
	{ "absptr", 1, "zR", DW_EH_PE_absptr, false, PM_CFI_OK },
	{ "aligned", 1, "zR", DW_EH_PE_aligned, false, PM_CFI_OK },
	{ "indirect pcrel sdata4", 1, "zR", DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4, false,
	  PM_CFI_OK },
	{ "no augmentation", 1, "", DW_EH_PE_absptr, false, PM_CFI_OK },
	{ "zPLR, version 3", 3, "zPLR", DW_EH_PE_pcrel | DW_EH_PE_sdata4, false, PM_CFI_OK },
	{ "zPLR, 64-bit", 1, "zPLR", DW_EH_PE_pcrel | DW_EH_PE_sdata4, true, PM_CFI_OK },
	{ "version 4", 4, "zR", DW_EH_PE_pcrel | DW_EH_PE_sdata4, false, PM_CFI_OK },
	{ "zRB", 1, "zRB", DW_EH_PE_pcrel | DW_EH_PE_sdata4, false, PM_CFI_OK },
	{ "textrel", 1, "zR", DW_EH_PE_textrel | DW_EH_PE_sdata4, false, PM_CFI_BAD },
	{ "datarel in an FDE", 1, "zR", DW_EH_PE_datarel | DW_EH_PE_sdata4, false, PM_CFI_BAD },
	{ "funcrel", 1, "zR", DW_EH_PE_funcrel | DW_EH_PE_sdata4, false, PM_CFI_BAD },
	{ "aligned sdata4", 1, "zR", DW_EH_PE_aligned | DW_EH_PE_sdata4, false, PM_CFI_BAD },
	{ "unknown format", 1, "zR", 0x05, false, PM_CFI_BAD },
	{ "omit", 1, "zR", DW_EH_PE_omit, false, PM_CFI_BAD },
	{ "version 2", 2, "zR", DW_EH_PE_pcrel | DW_EH_PE_sdata4, false, PM_CFI_BAD },
	{ "legacy eh augmentation", 1, "eh", DW_EH_PE_absptr, false, PM_CFI_BAD },
	{ "unknown augmentation", 1, "zRX", DW_EH_PE_pcrel | DW_EH_PE_sdata4, false, PM_CFI_BAD },
};

Test(cfi, pointer_encodings_and_cie_forms)
{
	/* Low enough for the 2-byte formats. */
	const uint64_t fn = 0x4000;
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		const form_case *k = &forms[i];
		world();
		cie_spec c = std_cie();
		c.version = k->version;
		c.aug = k->aug;
		c.fde_enc = k->fde_enc;
		c.is64 = k->is64;
		emit_fde(&c, emit_cie(&c), fn, 0x10, B(DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16));
		finish();
		uint64_t rsp = STACK + 0x100;
		poke_u64(rsp + 8, 0x40b000 + i);
		pm_cpu cpu = regs_at(fn + 2, rsp, true);
		if (k->want != PM_CFI_OK) {
			expect_fail(k->want, cpu, k->name);
			continue;
		}
		pm_cpu want = caller_of(&cpu, rsp + 16, 0x40b000 + i);
		expect_step(cpu, &want, k->name);
	}
}

Test(cfi, cie_address_size_other_than_8)
{
	world();
	cie_spec c = std_cie();
	c.version = 4;
	uint64_t cie = emit_cie(&c);
	emit_fde(&c, cie, F, 0x10, NO_BYTES);
	finish();
	space.bytes[cie + 4 + 4 + 1 + 3 - BASE] = 4; /* length, id, version, "zR\0": the address size */
	expect_fail(PM_CFI_BAD, regs_at(F + 1, STACK + 0x100, true), "address size 4");
}

/* ---- the search table, and the walk without one ---- */

static const struct {
	const char *name;
	uint8_t count_enc, table_enc;
} table_forms[] = {
	{ "datarel sdata4", DW_EH_PE_udata4, DW_EH_PE_datarel | DW_EH_PE_sdata4 },
	{ "absptr", DW_EH_PE_udata8, DW_EH_PE_absptr },
	{ "pcrel sdata4, uleb count", DW_EH_PE_uleb128, DW_EH_PE_pcrel | DW_EH_PE_sdata4 },
	{ "datarel sdata8", DW_EH_PE_sdata4, DW_EH_PE_datarel | DW_EH_PE_sdata8 },
	{ "udata2", DW_EH_PE_udata2, DW_EH_PE_udata4 },
	{ "no count: linear", DW_EH_PE_omit, DW_EH_PE_omit },
	{ "no table: linear", DW_EH_PE_udata4, DW_EH_PE_omit },
	{ "uleb table: linear", DW_EH_PE_udata4, DW_EH_PE_uleb128 },
};

/* Five functions at F + 0x100 k (k = 1..5, emitted out of order), each 0x80 long with
 * CFA rsp + 8 k, from two CIEs; a CIE between FDEs as a linear walk meets it. */
static void
build_five(uint8_t count_enc, uint8_t table_enc)
{
	world();
	cie_spec c = std_cie();
	uint64_t cie_a = emit_cie(&c);
	static const unsigned order[5] = { 3, 1, 5, 2, 4 };
	for (unsigned i = 0; i < 5; i++) {
		unsigned k = order[i];
		uint64_t cie = cie_a;
		if (i == 2)
			cie = emit_cie(&c);
		emit_fde(&c, cie, F + 0x100 * k, 0x80, B(DW_CFA_def_cfa_offset, (uint8_t)(8 * k)));
	}
	finish_with(count_enc, table_enc);
}

Test(cfi, search_table_forms_and_linear_walk)
{
	for (size_t t = 0; t < sizeof table_forms / sizeof table_forms[0]; t++) {
		build_five(table_forms[t].count_enc, table_forms[t].table_enc);
		uint64_t rsp = STACK + 0x100;
		for (unsigned k = 1; k <= 5; k++) {
			poke_u64(rsp + 8 * k - 8, 0x40c000 + k);
			pm_cpu cpu = regs_at(F + 0x100 * k + 0x7f, rsp, true);
			pm_cpu want = caller_of(&cpu, rsp + 8 * k, 0x40c000 + k);
			expect_step(cpu, &want, table_forms[t].name);
			cpu = regs_at(F + 0x100 * k + 0x80, rsp, true);
			expect_fail(PM_CFI_NOINFO, cpu, table_forms[t].name);
		}
		expect_fail(PM_CFI_NOINFO, regs_at(F + 0xff, rsp, true), "below the first function");
		expect_fail(PM_CFI_NOINFO, regs_at(0xffffffffffff0000u, rsp, true), "far above");
	}
}

Test(cfi, no_pc_or_no_table_is_no_information)
{
	build_five(DW_EH_PE_udata4, DW_EH_PE_datarel | DW_EH_PE_sdata4);
	pm_cpu cpu = regs_at(0, STACK + 0x100, true);
	expect_fail(PM_CFI_NOINFO, cpu, "pc 0");
	cpu = regs_at(F + 0x101, STACK + 0x100, true);
	pm_cpu before = cpu;
	cr_expect_eq(as_cfi_step(&mem, 0, &cpu), PM_CFI_NOINFO);
	cr_expect(same_cpu(&cpu, &before));
}

/* ---- DWARF expressions, one family at a time ---- */

typedef struct expr_case {
	const char *name;
	bytes code;
	uint64_t want;                  /* ignored when bad */
	bool bad;
} expr_case;

enum {
	EXPR_RSP = STACK + 0x100,
	EXPR_CFA = EXPR_RSP + 8,
	DATA = STACK + 0x300,           /* holds 0x1122334455667788 */
};

#define ADDR_OF_DATA 0x00, 0x83, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00
#define R(n) (0x1111u * ((n) + 1))

static const expr_case exprs[] = {
	{ "initial CFA", NO_BY, EXPR_CFA, false },
	{ "nop", BY(DW_OP_nop), EXPR_CFA, false },
	{ "lit31", BY(DW_OP_drop, LIT(31)), 31, false },
	{ "addr", BY(DW_OP_drop, DW_OP_addr, ADDR_OF_DATA), DATA, false },
	{ "deref", BY(DW_OP_drop, DW_OP_addr, ADDR_OF_DATA, DW_OP_deref), 0x1122334455667788u, false },
	{ "deref_size 2", BY(DW_OP_drop, DW_OP_addr, ADDR_OF_DATA, DW_OP_deref_size, 2), 0x7788, false },
	{ "const1u", BY(DW_OP_drop, DW_OP_const1u, 0xff), 0xff, false },
	{ "const1s", BY(DW_OP_drop, DW_OP_const1s, 0xff), UINT64_MAX, false },
	{ "const2u", BY(DW_OP_drop, DW_OP_const2u, 0x34, 0x12), 0x1234, false },
	{ "const2s", BY(DW_OP_drop, DW_OP_const2s, 0x00, 0x80), (uint64_t)-32768, false },
	{ "const4u", BY(DW_OP_drop, DW_OP_const4u, 0x78, 0x56, 0x34, 0x12), 0x12345678, false },
	{ "const4s", BY(DW_OP_drop, DW_OP_const4s, 0xfe, 0xff, 0xff, 0xff), (uint64_t)-2, false },
	{ "const8u", BY(DW_OP_drop, DW_OP_const8u, 8, 7, 6, 5, 4, 3, 2, 1), 0x0102030405060708u, false },
	{ "const8s", BY(DW_OP_drop, DW_OP_const8s, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
	  (uint64_t)-3, false },
	{ "constu", BY(DW_OP_drop, DW_OP_constu, 0x80, 0x01), 128, false },
	{ "consts", BY(DW_OP_drop, DW_OP_consts, 0x7f), UINT64_MAX, false },
	{ "dup", BY(DW_OP_drop, LIT(3), DW_OP_dup, DW_OP_plus), 6, false },
	{ "drop", BY(LIT(3), DW_OP_drop), EXPR_CFA, false },
	{ "over", BY(DW_OP_drop, LIT(3), LIT(5), DW_OP_over, DW_OP_minus), 2, false },
	{ "pick", BY(DW_OP_drop, LIT(1), LIT(2), LIT(3), DW_OP_pick, 2), 1, false },
	{ "swap", BY(DW_OP_drop, LIT(1), LIT(2), DW_OP_swap, DW_OP_minus), 1, false },
	{ "rot", BY(DW_OP_drop, LIT(1), LIT(2), LIT(4), DW_OP_rot, DW_OP_minus, DW_OP_minus), 5, false },
	{ "abs", BY(DW_OP_drop, DW_OP_consts, 0x79, DW_OP_abs), 7, false },
	{ "and", BY(DW_OP_drop, DW_OP_const1u, 0xf0, DW_OP_const1u, 0x3c, DW_OP_and), 0x30, false },
	{ "div is signed", BY(DW_OP_drop, DW_OP_consts, 0x74, LIT(4), DW_OP_div), (uint64_t)-3, false },
	{ "minus", BY(LIT(8), DW_OP_minus), EXPR_CFA - 8, false },
	{ "mod", BY(DW_OP_drop, LIT(17), LIT(5), DW_OP_mod), 2, false },
	{ "mul", BY(DW_OP_drop, LIT(6), LIT(7), DW_OP_mul), 42, false },
	{ "neg", BY(DW_OP_drop, LIT(5), DW_OP_neg), (uint64_t)-5, false },
	{ "not", BY(DW_OP_drop, LIT(0), DW_OP_not), UINT64_MAX, false },
	{ "or", BY(DW_OP_drop, LIT(16), LIT(3), DW_OP_or), 19, false },
	{ "plus", BY(LIT(8), DW_OP_plus), EXPR_CFA + 8, false },
	{ "plus_uconst", BY(DW_OP_plus_uconst, 0x90, 0x01), EXPR_CFA + 144, false },
	{ "shl", BY(DW_OP_drop, LIT(1), LIT(4), DW_OP_shl), 16, false },
	{ "shr", BY(DW_OP_drop, DW_OP_const1u, 0x80, LIT(3), DW_OP_shr), 16, false },
	{ "shra", BY(DW_OP_drop, DW_OP_consts, 0x70, LIT(2), DW_OP_shra), (uint64_t)-4, false },
	{ "xor", BY(DW_OP_drop, LIT(12), LIT(10), DW_OP_xor), 6, false },
	{ "bra taken", BY(DW_OP_drop, LIT(7), LIT(1), DW_OP_bra, 1, 0, LIT(5)), 7, false },
	{ "bra not taken", BY(DW_OP_drop, LIT(7), LIT(0), DW_OP_bra, 1, 0, LIT(5)), 5, false },
	{ "skip", BY(DW_OP_drop, LIT(7), DW_OP_skip, 1, 0, LIT(5)), 7, false },
	{ "eq", BY(DW_OP_drop, LIT(3), LIT(3), DW_OP_eq), 1, false },
	{ "ne", BY(DW_OP_drop, LIT(3), LIT(3), DW_OP_ne), 0, false },
	{ "ge is signed", BY(DW_OP_drop, DW_OP_consts, 0x7f, LIT(1), DW_OP_ge), 0, false },
	{ "gt", BY(DW_OP_drop, LIT(2), LIT(1), DW_OP_gt), 1, false },
	{ "le", BY(DW_OP_drop, LIT(1), LIT(1), DW_OP_le), 1, false },
	{ "lt is signed", BY(DW_OP_drop, DW_OP_consts, 0x7f, LIT(0), DW_OP_lt), 1, false },
	{ "reg3", BY(DW_OP_drop, REG(3)), R(3), false },
	{ "breg6", BY(DW_OP_drop, BREG(6), 0x78), R(6) - 8, false },
	{ "regx", BY(DW_OP_drop, DW_OP_regx, 12), R(12), false },
	{ "bregx", BY(DW_OP_drop, DW_OP_bregx, 12, 16), R(12) + 16, false },
	{ "breg16 is the pc", BY(DW_OP_drop, BREG(16), 0), F + 5, false },
	{ "division by zero", BY(LIT(1), LIT(0), DW_OP_div), 0, true },
	{ "modulo by zero", BY(LIT(1), LIT(0), DW_OP_mod), 0, true },
	{ "stack underflow", BY(DW_OP_drop, DW_OP_drop), 0, true },
	{ "empty at the end", BY(DW_OP_drop), 0, true },
	{ "unknown op", BY(0x9c), 0, true },
	{ "truncated operand", BY(DW_OP_const4u, 1, 2), 0, true },
	{ "skip past the end", BY(DW_OP_skip, 0x10, 0), 0, true },
	{ "skip before the start", BY(DW_OP_skip, 0xf0, 0xff), 0, true },
	{ "skip to itself", BY(DW_OP_skip, 0xfd, 0xff), 0, true },
	{ "bra loop", BY(LIT(1), DW_OP_dup, DW_OP_bra, 0xfc, 0xff), 0, true },
	{ "unreadable deref", BY(LIT(0), DW_OP_deref), 0, true },
	{ "deref_size 9", BY(DW_OP_deref_size, 9), 0, true },
	{ "no such register", BY(DW_OP_regx, 40), 0, true },
	{ "unknown register value", BY(BREG(9), 0), 0, true },
};

Test(cfi, expression_operations)
{
	uint8_t overflow[PM_CFI_EXPR_STACK];
	memset(overflow, DW_OP_dup, sizeof overflow);
	for (size_t i = 0; i <= sizeof exprs / sizeof exprs[0]; i++) {
		expr_case k = i < sizeof exprs / sizeof exprs[0]
		                  ? exprs[i]
		                  : (expr_case){ "stack overflow", { overflow, sizeof overflow }, 0, true };
		world();
		cie_spec c = std_cie();
		uint8_t insns[128] = { DW_CFA_val_expression, 3, (uint8_t)k.code.n };
		cr_assert(k.code.n + 3 <= sizeof insns);
		if (k.code.n)
			memcpy(insns + 3, k.code.p, k.code.n);
		emit_fde(&c, emit_cie(&c), F, 0x10, (bytes){ insns, k.code.n + 3 });
		finish();
		poke_u64(EXPR_RSP, 0x40d000);
		poke_u64(DATA, 0x1122334455667788u);
		pm_cpu cpu = regs_at(F + 5, EXPR_RSP, true);
		cpu.valid &= ~(UINT64_C(1) << 9);
		if (k.bad) {
			expect_fail(PM_CFI_BAD, cpu, k.name);
			continue;
		}
		pm_cpu want = caller_of(&cpu, EXPR_CFA, 0x40d000);
		want.r[3] = k.want;
		want.valid |= UINT64_C(1) << 3;
		expect_step(cpu, &want, k.name);
	}
}

/* ---- hostile tables ---- */

Test(cfi, hostile_headers)
{
	build_five(DW_EH_PE_udata4, DW_EH_PE_datarel | DW_EH_PE_sdata4);
	pm_cpu cpu = regs_at(F + 0x101, STACK + 0x100, true);
	space.bytes[0] = 2;
	expect_fail(PM_CFI_BAD, cpu, "version 2");
	space.bytes[0] = 1;
	space.bytes[1] = DW_EH_PE_omit;
	expect_fail(PM_CFI_BAD, cpu, "no eh_frame_ptr");
	space.bytes[1] = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
	cr_expect_eq(as_cfi_step(&mem, BASE + SPACE - 2, &cpu), PM_CFI_BAD,
	             "header cut by the end of memory");
	/* The count claims far more entries than memory holds. */
	poke(HDR + 8, &(uint32_t){ 0x100000 }, 4);
	expect_fail(PM_CFI_BAD, cpu, "truncated table");
	poke(HDR + 8, &(uint32_t){ 0xffffffff }, 4);
	expect_fail(PM_CFI_BAD, cpu, "huge count");
}

Test(cfi, table_pointing_at_a_cie)
{
	build_five(DW_EH_PE_udata4, DW_EH_PE_datarel | DW_EH_PE_sdata4);
	/* Entry 0's FDE pointer (datarel sdata4) now names the first CIE. */
	poke(HDR + 12 + 4, &(int32_t){ EH - HDR }, 4);
	expect_fail(PM_CFI_BAD, regs_at(F + 0x101, STACK + 0x100, true), "table names a CIE");
}

Test(cfi, fde_range_overflowing)
{
	world();
	cie_spec c = std_cie();
	c.fde_enc = DW_EH_PE_sdata8;
	emit_fde(&c, emit_cie(&c), 0xfffffffffffff000u, 0x2000, NO_BYTES);
	finish_with(DW_EH_PE_udata4, DW_EH_PE_udata8);
	expect_fail(PM_CFI_BAD, regs_at(0xfffffffffffff800u, STACK + 0x100, true), "range wraps");
}

Test(cfi, cie_pointer_to_garbage)
{
	world();
	cie_spec c = std_cie();
	uint64_t cie = emit_cie(&c);
	memset(space.bytes + (STACK - BASE), 0xa5, 64);
	emit_fde(&c, STACK, F, 0x10, NO_BYTES);
	uint64_t fde = emit_fde(&c, cie, F + 0x10, 0x10, NO_BYTES);
	emit_fde(&c, fde, F + 0x20, 0x10, NO_BYTES);       /* "CIE" that is an FDE */
	emit_fde(&c, eh_at + 4 - 0xfffffff0u, F + 0x30, 0x10, NO_BYTES); /* before address 0 */
	emit_fde(&c, STACK + 0x100, F + 0x40, 0x10, NO_BYTES); /* zero terminator */
	finish();
	uint64_t pcs[] = { F + 1, F + 0x21, F + 0x31, F + 0x41 };
	for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++)
		expect_fail(PM_CFI_BAD, regs_at(pcs[i], STACK + 0x200, true), "CIE pointer");
}

Test(cfi, entries_running_past_memory)
{
	build_classic(false);
	poke(table[0].fde, &(uint32_t){ 0xfff000 }, 4);
	expect_fail(PM_CFI_BAD, regs_at(F + 0x28, STACK + 0x100, true), "FDE length");
	build_classic(false);
	poke(EH, &(uint32_t){ 0xfff000 }, 4);
	expect_fail(PM_CFI_BAD, regs_at(F + 0x28, STACK + 0x100, true), "CIE length");
	build_classic(false);
	poke(EH, &(uint32_t){ 0x7fffffff }, 4);
	expect_fail(PM_CFI_BAD, regs_at(F + 0x28, STACK + 0x100, true), "absurd CIE length");
}

static const struct {
	const char *name;
	bytes insns;
} bad_insns[] = {
	/* 0x2d is DW_CFA_AARCH64_negate_ra_state (GNU_window_save on SPARC): known, a no-op. */
	{ "unknown opcode 0x2c", BY(0x2c) },
	{ "unknown opcode 0x1d", BY(0x1d, 0, 0, 0, 0, 0, 0, 0, 0) },
	{ "unknown opcode 0x3f", BY(0x3f) },
	{ "def_cfa_offset after an expression",
	  BY(DW_CFA_def_cfa_expression, 1, LIT(1), DW_CFA_def_cfa_offset, 8) },
	{ "def_cfa_register after an expression",
	  BY(DW_CFA_def_cfa_expression, 1, LIT(1), DW_CFA_def_cfa_register, 6) },
	{ "CFA in no register", BY(DW_CFA_def_cfa, 40, 8) },
	{ "value in no register", BY(DW_CFA_register, 3, 40) },
	{ "overlong LEB128",
	  BY(DW_CFA_def_cfa_offset, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01) },
	{ "block past the end", BY(DW_CFA_expression, 3, 0x40, LIT(1)) },
	{ "truncated operand", BY(DW_CFA_advance_loc4, 1, 0) },
	{ "factored offset overflows",
	  BY(DW_CFA_offset_extended, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f) },
	{ "CFA expression leaves nothing", BY(DW_CFA_def_cfa_expression, 1, DW_OP_nop) },
};

Test(cfi, bad_instructions)
{
	for (size_t i = 0; i < sizeof bad_insns / sizeof bad_insns[0]; i++) {
		world();
		cie_spec c = std_cie();
		emit_fde(&c, emit_cie(&c), F, 0x10, bad_insns[i].insns);
		finish();
		poke_u64(STACK + 0x100, 0x40e000);
		expect_fail(PM_CFI_BAD, regs_at(F + 1, STACK + 0x100, true), bad_insns[i].name);
	}
}

Test(cfi, rules_for_untracked_registers_are_ignored)
{
	world();
	cie_spec c = std_cie();
	emit_fde(&c, emit_cie(&c), F, 0x10,
	         B(DW_CFA_offset_extended, 40, 2, DW_CFA_undefined, 33, DW_CFA_restore_extended, 50));
	finish();
	poke_u64(STACK + 0x100, 0x40f000);
	pm_cpu cpu = regs_at(F + 1, STACK + 0x100, true);
	pm_cpu want = caller_of(&cpu, STACK + 0x108, 0x40f000);
	expect_step(cpu, &want, "vector registers");
}

Test(cfi, no_cfa_rule)
{
	world();
	cie_spec c = std_cie();
	c.init = B(DW_CFA_offset | 16, 1);
	emit_fde(&c, emit_cie(&c), F, 0x10, NO_BYTES);
	finish();
	expect_fail(PM_CFI_BAD, regs_at(F + 1, STACK + 0x100, true), "CFA never defined");
}

Test(cfi, unreadable_or_unknown_frame)
{
	build_classic(false);
	expect_fail(PM_CFI_BAD, regs_at(F + 1, 0x100, true), "stack outside memory");
	pm_cpu cpu = regs_at(F + 0x10, STACK + 0x100, false);
	cpu.valid &= ~(UINT64_C(1) << 6);
	expect_fail(PM_CFI_BAD, cpu, "CFA register unknown");
}

Test(cfi, flaky_memory)
{
	build_classic(false);
	uint64_t rsp = STACK + 0x100, rbp = STACK + 0x140;
	poke_u64(rbp, 0xcafe);
	poke_u64(rbp + 8, 0x410000);
	pm_cpu cpu = regs_at(F + 0x10, rsp, false);
	cpu.r[6] = rbp;
	pm_cpu ok = cpu;
	cr_assert_eq(step(&ok), PM_CFI_OK);
	cr_assert_geq(space.reads, 2, "a step reads more than once");
	for (unsigned parity = 1; parity <= 2; parity++) {
		space.reads = 0;
		space.fail_parity = parity;
		pm_cpu before = cpu, got = cpu;
		pm_cfi_result r = step(&got);
		cr_expect(r == PM_CFI_BAD || r == PM_CFI_NOINFO, "parity %u: %d", parity, (int)r);
		cr_expect(same_cpu(&got, &before), "parity %u: registers changed", parity);
	}
}

/* ---- this very process ---- */

enum { MAX_FRAMES = 64 };

typedef struct trace {
	uint64_t pc[MAX_FRAMES];
	size_t n;
	pm_cfi_result last;
} trace;

typedef struct image_query {
	uint64_t pc, eh_frame_hdr;
} image_query;

static int
find_eh_frame_hdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	image_query *q = arg;
	bool inside = false;
	uint64_t hdr = 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && q->pc >= start && q->pc - start < ph->p_memsz)
			inside = true;
		if (ph->p_type == PT_GNU_EH_FRAME)
			hdr = start;
	}
	if (!inside)
		return 0;
	q->eh_frame_hdr = hdr;
	return 1;
}

static void
walk(const ucontext_t *uc, trace *t)
{
	pm_cpu cpu;
	pm_mem self = as_mem_self();
	as_arch_cpu_from_mcontext(&uc->uc_mcontext, &cpu);
	cpu.signal_frame = false; /* getcontext's pc is its return address */
	t->n = 0;
	t->last = PM_CFI_OK;
	while (t->n < MAX_FRAMES && cpu.pc != 0) {
		t->pc[t->n++] = cpu.pc;
		image_query q = { .pc = cpu.signal_frame ? cpu.pc : cpu.pc - 1 };
		dl_iterate_phdr(find_eh_frame_hdr, &q);
		if (q.eh_frame_hdr == 0) {
			t->last = PM_CFI_NOINFO;
			return;
		}
		if ((t->last = as_cfi_step(&self, q.eh_frame_hdr, &cpu)) != PM_CFI_OK)
			return;
	}
}

/* The chain is built without frame pointers, whatever the build type says. */
#if defined(__GNUC__) && !defined(__clang__)
#define LIVE __attribute__((noinline, optimize("omit-frame-pointer")))
#else
#define LIVE __attribute__((noinline))
#endif

static trace chain_trace, sort_trace;
static uint64_t chain_ra[4];         /* capture's, then each chain function's return address */
static volatile int sink;

static LIVE int
capture(trace *t, int x)
{
	ucontext_t uc;
	if (t == &chain_trace)
		chain_ra[0] = (uint64_t)__builtin_return_address(0);
	getcontext(&uc);
	walk(&uc, t);
	return x + sink;
}

static LIVE int
chain_c(int x)
{
	chain_ra[1] = (uint64_t)__builtin_return_address(0);
	return capture(&chain_trace, x + 3) * 7 + sink;
}

static LIVE int
chain_b(int x)
{
	chain_ra[2] = (uint64_t)__builtin_return_address(0);
	return chain_c(x + 2) * 5 + sink;
}

static LIVE int
chain_a(int x)
{
	chain_ra[3] = (uint64_t)__builtin_return_address(0);
	return chain_b(x + 1) * 3 + sink;
}

static bool
in_libc(uint64_t pc)
{
	Dl_info info;
	return dladdr((void *)(uintptr_t)pc, &info) && info.dli_fname && strstr(info.dli_fname, "libc.so");
}

Test(cfi_live, chain_without_frame_pointers)
{
	cr_assert(pmi_as_mem_setup());
	sink = chain_a(1) * 0;
	const trace *t = &chain_trace;
	cr_assert_geq(t->n, 5, "only %zu frames", t->n);
	for (size_t i = 0; i < 4; i++)
		cr_expect_eq(t->pc[i + 1], chain_ra[i], "frame %zu: %#lx, want %#lx", i + 1,
		             (unsigned long)t->pc[i + 1], (unsigned long)chain_ra[i]);
	/* On through Criterion and libc to _start, whose return address is undefined. */
	cr_expect_eq(t->last, PM_CFI_OK, "the walk stopped with %d after %zu frames", (int)t->last, t->n);
	cr_expect(t->n < MAX_FRAMES);
	bool libc = false;
	for (size_t i = 0; i < t->n; i++)
		libc = libc || in_libc(t->pc[i]);
	cr_expect(libc, "__libc_start_main never appeared");
}

static uint64_t compare_ra, sorter_ra;

static LIVE int
compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (compare_ra == 0) {
		compare_ra = (uint64_t)__builtin_return_address(0);
		capture(&sort_trace, x);
	}
	return (x > y) - (x < y);
}

static LIVE int
sorter(void)
{
	int v[] = { 5, 3, 9, 1, 7, 2, 8, 6 };
	sorter_ra = (uint64_t)__builtin_return_address(0);
	qsort(v, sizeof v / sizeof v[0], sizeof v[0], compare);
	return v[0] + sink;
}

Test(cfi_live, through_qsort)
{
	cr_assert(pmi_as_mem_setup());
	sink = sorter() * 0;
	const trace *t = &sort_trace;
	cr_assert_geq(t->n, 4, "only %zu frames", t->n);
	cr_expect_eq(t->pc[2], compare_ra, "the comparator's caller");
	cr_expect(in_libc(compare_ra), "the comparator is called from libc");
	size_t i = 3;
	while (i < t->n && t->pc[i] != sorter_ra)
		i++;
	cr_assert_lt(i, t->n, "the walk never got out of sorter()");
	/* The frame before it is sorter's, stopped at the return from qsort. */
	uint64_t in_sorter = t->pc[i - 1];
	cr_expect(in_sorter > (uint64_t)(uintptr_t)sorter && in_sorter < (uint64_t)(uintptr_t)sorter + 512,
	          "%#lx is not in sorter()", (unsigned long)in_sorter);
	for (size_t k = 2; k + 1 < i; k++)
		cr_expect(in_libc(t->pc[k]), "frame %zu (%#lx) between the comparator and sorter() is not libc's",
		          k,
		          (unsigned long)t->pc[k]);
}
