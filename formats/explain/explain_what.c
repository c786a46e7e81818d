/*
 * explain_what.c — the "what happened" sentences of a diagnosis: the signal
 * or exception in plain words, with heuristics a developer can act on (NULL
 * dereference, stack overflow, call through a bad pointer).
 */
#include "explain.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Addresses below one page are offsets from a NULL pointer. */
#define NULL_PAGE 4096u
/* A fault this far below the stack pointer is a push or a frame past the guard page. */
#define STACK_REACH (64u * 1024u)

/* What each Apple bad-access subtype says about the memory, after "memory at X". */
static const struct {
	const char *subtype;
	const char *clause;
} access_clauses[] = {
	{ "KERN_INVALID_ADDRESS", "that is not mapped" },
	{ "KERN_PROTECTION_FAILURE",
	  "whose protection forbids that access (read-only, not executable, or a guard page)" },
	{ "KERN_MEMORY_ERROR",
	  "whose backing store could not supply the data (a mapped file shrank or its device failed)" },
	{ "KERN_MEMORY_FAILURE", "whose memory object was destroyed" },
	{ "KERN_CODESIGN_ERROR", "on a page that failed its code-signature check" },
	{ "EXC_ARM_DA_ALIGN", "with a misaligned access" },
	{ "EXC_ARM_PAC_FAIL", "through a pointer that failed pointer authentication" },
	{ "EXC_I386_GPFLT", "through an invalid (non-canonical) pointer" },
};

/* x86 general protection faults carry no address (Linux reports 0). */
static const char gp_fault[] = "EXC_I386_GPFLT";

static const char *
access_clause(const char *subtype)
{
	for (size_t i = 0; i < sizeof access_clauses / sizeof access_clauses[0]; i++)
		if (strcmp(access_clauses[i].subtype, subtype) == 0)
			return access_clauses[i].clause;
	return NULL;
}

/* The Linux si_code of the report, when it has one we know. */
static const pm_si_code_info *
report_si_code(const pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	if (!e->has_si_code || !f->sig)
		return NULL;
	const pm_signal_info *lnx = pmi_signal_by_name(PM_OS_LINUX, f->sig->name);
	return lnx ? pmi_si_code_by_number(lnx->number, e->si_code) : NULL;
}

/*
 * The first word of an Exception Subtype or Codes text ("KERN_INVALID_ADDRESS
 * at 0x...", "SEGV_MAPERR at 0x..."), as an Apple name when we know one: iOS 13
 * prints unnamed codes as UNKNOWN_0x32, third-party reports print si_codes.
 */
static const char *
subtype_in_text(const char *text, char *buf, size_t cap)
{
	if (!text || text[0] < 'A' || text[0] > 'Z')
		return NULL;
	size_t n = strcspn(text, " ,");
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	const pm_code_info *c = strncmp(buf, "UNKNOWN_0x", 10) == 0
	                                ? pmi_bad_access_code_by_number(strtoull(buf + 10, NULL, 16))
	                                : NULL;
	const pm_si_code_info *si = pmi_si_code_by_name(buf);
	return c ? c->name : si && si->subtype[0] ? si->subtype : buf;
}

/*
 * The Apple subtype name: from the si_code (Linux; SI_KERNEL on a SIGSEGV is
 * how x86_64 reports a general protection fault), else from the report's
 * text, else from the raw code.
 */
static const char *
access_subtype(const pm_explain_facts *f, char *buf, size_t cap)
{
	const pm_exception *e = &f->r->exception;
	const pm_si_code_info *si = report_si_code(f);
	if (si && si->code == 0x80 && strcmp(f->sig->name, "SIGSEGV") == 0)
		return gp_fault;
	if (si)
		return si->subtype[0] ? si->subtype : si->name;
	const char *named = subtype_in_text(e->subtype ? e->subtype : e->codes, buf, cap);
	if (named)
		return named;
	const pm_code_info *c = NULL;
	if (e->raw_code_count > 0)
		c = pmi_bad_access_code_by_number(e->raw_codes[0]);
	return c ? c->name : NULL;
}

static bool
stack_pointer(const pm_thread *t, uint64_t *sp)
{
	if (!t || !t->regs)
		return false;
	for (unsigned i = 0; i < t->regs->count && i < PM_MAX_REGS; i++) {
		const pm_reg *g = &t->regs->reg[i];
		if (strncmp(g->name, "rsp", PM_REG_NAME_MAX) == 0 ||
		    strncmp(g->name, "sp", PM_REG_NAME_MAX) == 0) {
			*sp = g->value;
			return true;
		}
	}
	return false;
}

/* What the address suggests, as a clause starting with " — ", or "". */
static const char *
address_hint(const pm_explain_facts *f)
{
	const pm_thread *t = pmi_explain_thread(f);
	bool jumped = t && t->frame_count > 0 && t->frames[0].address == f->address;
	uint64_t sp;
	if (f->address < NULL_PAGE)
		return jumped ? " — a call through a NULL function pointer"
		              : " — a NULL pointer dereference";
	if (stack_pointer(t, &sp) && f->address <= sp && sp - f->address <= STACK_REACH)
		return " — likely a stack overflow (runaway recursion or a very large local variable)";
	if (jumped)
		return " — it jumped there: a call through a bad function pointer or a corrupted "
		       "return address";
	return "";
}

/*
 * ": it read or wrote memory at X that ... (SUBTYPE) — hint."; false when the
 * report gives neither the address nor the subtype.
 */
static bool
say_bad_access(pm_sbuf *b, const pm_explain_facts *f)
{
	char buf[64];
	const char *subtype = access_subtype(f, buf, sizeof buf);
	if (!subtype && !f->has_address)
		return false;
	const char *clause = subtype ? access_clause(subtype) : NULL;
	bool at = f->has_address && !(subtype && strcmp(subtype, gp_fault) == 0);
	pmi_sbuf_printf(b, ": it read or wrote memory");
	if (at)
		pmi_sbuf_printf(b, " at 0x%016llx", (unsigned long long)f->address);
	if (clause)
		pmi_sbuf_printf(b, " %s", clause);
	if (subtype)
		pmi_sbuf_printf(b, " (%s)", subtype);
	pmi_sbuf_printf(b, "%s.", at ? address_hint(f) : "");
	return true;
}

typedef bool code_pair_decoder(uint64_t code, uint64_t subcode, char *subtype, size_t subtype_cap,
                               char *message, size_t message_cap);

static code_pair_decoder *
decoder_for(const char *exc_type)
{
	if (strcmp(exc_type, "EXC_RESOURCE") == 0)
		return pmi_decode_exc_resource;
	if (strcmp(exc_type, "EXC_GUARD") == 0)
		return pmi_decode_exc_guard;
	return NULL;
}

/* The report's subtype and message, else what the raw codes of EXC_RESOURCE/EXC_GUARD say. */
static void
say_exception_details(pm_sbuf *b, const pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	char subtype[64], message[160];
	const char *st = e->subtype, *msg = e->message;
	code_pair_decoder *decode = decoder_for(f->exc_type);
	if (!st && !msg && e->raw_code_count >= 2 && decode &&
	    decode(e->raw_codes[0], e->raw_codes[1], subtype, sizeof subtype, message, sizeof message)) {
		st = subtype;
		msg = message;
	}
	if (st)
		pmi_sbuf_printf(b, " Subtype: %s.", st);
	if (msg)
		pmi_sbuf_printf(b, " %s.", msg);
}

/* A Linux signal another process sent (kill, tgkill, sigqueue): its si_code is one only a
 * sender sets, and the sender is not the process itself (abort() and raise() are). */
static bool
sent_from_outside(const pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	if (f->r->os != PM_OS_LINUX || !e->has_si_code || e->terminating_pid < 0 ||
	    e->terminating_pid == f->r->header.pid)
		return false;
	return e->si_code == SI_USER || e->si_code == SI_TKILL || e->si_code == SI_QUEUE;
}

/* A fault signal the process sent itself: a handler that caught the real fault re-raised it. */
static bool
reraised_fault(const pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	static const char *const faults[] = { "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP" };
	if (f->r->os != PM_OS_LINUX || !e->has_si_code || !f->sig || e->terminating_pid != f->r->header.pid ||
	    !(e->si_code == SI_USER || e->si_code == SI_TKILL || e->si_code == SI_QUEUE))
		return false;
	for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
		if (strcmp(f->sig->name, faults[i]) == 0)
			return true;
	return false;
}

static void
say_sender(pm_sbuf *b, const pm_explain_facts *f)
{
	const pm_exception *e = &f->r->exception;
	pmi_sbuf_printf(b, ": another process sent it; nothing this process did caused it.");
	if (e->term_description)
		pmi_sbuf_printf(b, " %s.", e->term_description);
	else
		pmi_sbuf_printf(b, " Sender: %s [%lld].", e->terminating_process ? e->terminating_process : "?",
		               (long long)e->terminating_pid);
}

static void
say_exception(pm_sbuf *b, const pm_explain_facts *f)
{
	const pm_mach_exc_info *mach = pmi_mach_exc_by_name(f->exc_type);
	if (f->sig)
		pmi_sbuf_printf(b, "The process was killed by %s (%s)", f->sig->name, f->exc_type);
	else if (mach)
		pmi_sbuf_printf(b, "The process was stopped by %s", f->exc_type);
	else
		pmi_sbuf_printf(b, "The report gives the exception type as %s", f->exc_type);
	if (sent_from_outside(f)) {
		say_sender(b, f);
	} else if (reraised_fault(f)) {
		pmi_sbuf_printf(b, ": the process raised it itself, so this is not where the fault happened. "
		                  "Another signal handler, installed after postmortem's (Python's "
		                  "faulthandler, a language runtime), caught the original fault first and "
		                  "re-raised it when it was done; its address is not known, and the "
		                  "crashed thread's frames below the re-raise show where that handler ran.");
	} else if (!(strcmp(f->exc_type, "EXC_BAD_ACCESS") == 0 && say_bad_access(b, f))) {
		const char *meaning = f->sig ? f->sig->meaning : mach ? mach->meaning : NULL;
		pmi_sbuf_printf(b, ".%s%s", meaning ? " " : "", meaning ? meaning : "");
		say_exception_details(b, f);
	}
	const pm_si_code_info *si = report_si_code(f);
	if (si)
		pmi_sbuf_printf(b, " The kernel reported %s (%s).", si->name, si->meaning);
	/* On a fault the kernel reported, only the re-raise a later handler made of it
	 * has a Termination Description (reporter/capture/as_reraise.c). */
	const pm_exception *e = &f->r->exception;
	if (f->r->os == PM_OS_LINUX && e->has_si_code && e->si_code > 0 && e->term_description)
		pmi_sbuf_printf(b, " %s.", e->term_description);
	pmi_explain_esr(b, f);
}

bool
pmi_explain_what(pm_explain_facts *f)
{
	pm_sbuf b = { 0 };
	if (f->r->kind == PM_KIND_SNAPSHOT) {
		pmi_sbuf_printf(&b, "This is a snapshot taken on request; the process did not crash.");
	} else {
		if (f->r->kind == PM_KIND_HANG)
			pmi_sbuf_printf(&b, "The process hung: a watchdog saw a thread stop responding for "
			                   "too long (blocked on a lock, I/O or the network, or busy "
			                   "computing).%s", f->exc_type ? " " : "");
		if (f->exc_type)
			say_exception(&b, f);
		else if (f->r->kind != PM_KIND_HANG)
			pmi_sbuf_printf(&b, "The report does not say which signal or exception ended "
			                   "the process.");
	}
	f->summary = pmi_sbuf_take(&b);
	return f->summary != NULL;
}
