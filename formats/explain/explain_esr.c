/*
 * explain_esr.c — the crashed thread's arm64 exception syndrome (esr) in
 * plain words.  A real kernel leaves one (Apple's reports, Linux's
 * esr_context); qemu-user and other architectures do not, and then the
 * diagnosis stands on the signal alone.
 */
#include "decode.h"
#include "explain.h"

#include <string.h>

/* What each abort fault status means: its name, then what it says about the
 * access (data; instruction fetch). */
static const struct {
	const char *name, *data, *fetch;
} statuses[PM_ESR_STATUS_KINDS] = {
	[PM_ESR_ADDRESS] = { "an address size fault", "the address is outside the range the page tables cover",
	                     "the address is outside the range the page tables cover" },
	[PM_ESR_TRANSLATION] = { "a translation fault", "nothing is mapped at that address",
	                         "nothing is mapped at that address" },
	[PM_ESR_ACCESS] = { "an access flag fault", "the page was not yet marked accessed",
	                    "the page was not yet marked accessed" },
	[PM_ESR_PERMISSION] = { "a permission fault",
	                        "the page is mapped but forbids this access (read-only, or no access at all)",
	                        "the page is mapped but not executable" },
	[PM_ESR_ALIGNMENT] = { "an alignment fault", "the access was misaligned", "the fetch was misaligned" },
	[PM_ESR_EXTERNAL] = { "a synchronous external abort",
	                      "the memory system answered with an error (a device or a memory fault)",
	                      "the memory system answered with an error (a device or a memory fault)" },
	[PM_ESR_OTHER_STATUS] = { "a fault", NULL, NULL },
};

/* Exception classes other than aborts and brk. */
static const struct {
	uint8_t ec;
	const char *text;
} classes[] = {
	{ 0x00, "an instruction the CPU does not know (an undefined instruction)" },
	{ 0x0d, "a branch target identification failure: an indirect branch to an address that is not a "
	        "valid branch target" },
	{ 0x0e, "an illegal execution state" },
	{ 0x15, "a system call (svc): the last exception the thread took was its call into the kernel, so "
	        "the signal came from a system call (abort and kill end that way)" },
	{ 0x1c, "a pointer authentication failure: a signed pointer (usually a return address) did not "
	        "authenticate, so it was corrupted" },
	{ 0x22, "a misaligned pc: a jump to an address that is not a multiple of 4" },
	{ 0x26, "a misaligned stack pointer" },
	{ 0x2c, "a trapped floating-point exception" },
};

/* Who emits a brk immediate (decode_esr.c lists the same ones). */
static const struct {
	uint16_t imm;
	const char *who;
} brks[] = {
	{ 0x1, "Swift's failed runtime checks (a force-unwrapped nil, an index out of range, an "
	       "overflow) and Apple's __builtin_trap" },
	{ 0x3e8, "GCC's __builtin_trap" },
	{ 0xf000, "clang's __builtin_trap and Rust's" },
};

static void
say_abort(pm_sbuf *b, const pm_esr_parts *p)
{
	bool data = p->kind == PM_ESR_DATA_ABORT;
	pmi_sbuf_printf(b, "%s hit %s", data ? (p->write ? "a data write" : "a data read") : "an instruction fetch",
	                statuses[p->status].name);
	if (p->level >= 0)
		pmi_sbuf_printf(b, " at translation table level %d", p->level);
	const char *why = data ? statuses[p->status].data : statuses[p->status].fetch;
	if (why)
		pmi_sbuf_printf(b, ": %s", why);
	else
		pmi_sbuf_printf(b, " (fault status 0x%02x)", p->fsc);
}

static void
say_brk(pm_sbuf *b, const pm_esr_parts *p)
{
	pmi_sbuf_printf(b, "a breakpoint instruction (brk #%u)", p->imm);
	for (size_t i = 0; i < sizeof brks / sizeof brks[0]; i++)
		if (brks[i].imm == p->imm)
			pmi_sbuf_printf(b, ", emitted by %s", brks[i].who);
}

static bool
esr_of(const pm_thread *t, uint32_t *esr)
{
	if (!t || !t->regs || t->regs->arch != PM_ARCH_ARM64)
		return false;
	for (uint32_t i = 0; i < t->regs->count && i < PM_MAX_REGS; i++)
		if (strncmp(t->regs->reg[i].name, "esr", PM_REG_NAME_MAX) == 0) {
			*esr = (uint32_t)t->regs->reg[i].value;
			return true;
		}
	return false;
}

void
pmi_explain_esr(pm_sbuf *b, const pm_explain_facts *f)
{
	uint32_t esr;
	if (!esr_of(pmi_explain_thread(f), &esr))
		return;
	pm_esr_parts p = pmi_esr_parts(esr);
	pmi_sbuf_printf(b, " The CPU's exception syndrome (esr 0x%08x) says ", esr);
	if (p.kind == PM_ESR_DATA_ABORT || p.kind == PM_ESR_INSN_ABORT) {
		say_abort(b, &p);
	} else if (p.kind == PM_ESR_BRK) {
		say_brk(b, &p);
	} else {
		const char *text = NULL;
		for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
			if (classes[i].ec == p.ec)
				text = classes[i].text;
		if (text)
			pmi_sbuf_printf(b, "%s", text);
		else
			pmi_sbuf_printf(b, "exception class 0x%02x", p.ec);
	}
	pmi_sbuf_printf(b, ".");
}
