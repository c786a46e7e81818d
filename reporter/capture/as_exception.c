/*
 * as_exception.c — AS-SAFE: the Exception and Termination lines from the
 * siginfo of the fatal signal (docs/text-format.md, "Linux mapping choices").
 */

#include "as_memory.h"
#include "as_report.h"
#include "decode.h"
#include "model.h"

/* The kernel raised it (a fault): si_code > 0.  Otherwise a process sent it. */
static bool
from_kernel(const siginfo_t *info)
{
	return info->si_code > 0;
}

/* si_addr holds the faulting address only for a fault the CPU described;
 * SI_KERNEL (int3, a general protection fault) leaves it 0. */
static bool
has_fault_address(int sig, const siginfo_t *info)
{
	return from_kernel(info) && info->si_code != SI_KERNEL && pmi_signal_has_address(PM_OS_LINUX, sig);
}

static const char *
codes_text(pm_arena *a, const pm_si_code_info *c, int si_code, bool has_addr, uint64_t addr)
{
	char name[48];
	pm_out o;
	pmi_out_init_buf(&o, name, sizeof name);
	if (c) {
		pmi_out_str(&o, c->name);
	} else {
		pmi_out_str(&o, "UNKNOWN_");
		pmi_out_i64(&o, si_code);
	}
	if (!has_addr)
		return pmi_arena_strndup(a, name, o.len);
	pmi_out_str(&o, " at ");
	return as_arena_addr(a, name, addr);
}

static const char *
indicator(pm_arena *a, const pm_signal_info *s, int sig)
{
	char buf[80];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	pmi_out_str(&o, s ? s->text : "Signal");
	pmi_out_str(&o, ": ");
	pmi_out_i64(&o, sig);
	return pmi_arena_strndup(a, buf, o.len);
}

/* The call another process used to send a signal, or NULL for codes no process sends. */
static const char *
sending_call(int si_code)
{
	switch (si_code) {
	case SI_USER:
		return "kill()";
	case SI_TKILL:
		return "tkill() or tgkill()";
	case SI_QUEUE:
		return "sigqueue()";
	default:
		return NULL;
	}
}

/* "Sent by another process with kill(): pm-sender [4242], uid 1000" (the name as it is now,
 * read at the crash: "a process that has exited" when it is gone). */
static const char *
sender_description(pm_arena *a, const char *call, const char *name, const siginfo_t *info)
{
	char buf[160];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	pmi_out_str(&o, "Sent by another process with ");
	pmi_out_str(&o, call);
	pmi_out_str(&o, ": ");
	pmi_out_str(&o, name ? name : "a process that has exited");
	pmi_out_str(&o, " [");
	pmi_out_i64(&o, info->si_pid);
	pmi_out_str(&o, "], uid ");
	pmi_out_u64(&o, info->si_uid);
	return pmi_arena_strndup(a, buf, o.len);
}

/* A fault signal the process sent itself: what a handler that ran before ours (installed
 * after postmortem: Python's faulthandler, a language runtime) does with the original
 * fault once it is done with it.  That fault's address only that handler saw. */
bool
as_is_reraised_fault(int sig, const siginfo_t *info, const as_target *t)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP) &&
	       sending_call(info->si_code) != NULL && info->si_pid == as_target_pid(t);
}

static void
fill_terminator(pm_exception *e, pm_arena *a, const pm_facts *f, int sig, const siginfo_t *info,
                const as_target *t, pid_t self)
{
	if (from_kernel(info)) {
		e->terminating_process = "exc handler";
		e->terminating_pid = self;
		return;
	}
	e->terminating_pid = info->si_pid;
	if (info->si_pid == self) {
		e->terminating_process = f->exe_name;
		if (as_is_reraised_fault(sig, info, t))
			e->term_description = "Re-raised by the process itself, not a fault it made here: another "
			                      "signal handler, installed after postmortem's, saw the original "
			                      "fault first (its address is not known)";
		return;
	}
	e->terminating_process = as_proc_name(a, info->si_pid);
	const char *call = sending_call(info->si_code);
	if (call)
		e->term_description = sender_description(a, call, e->terminating_process, info);
}

void
as_fill_exception(pm_report *r, const pm_facts *f, int sig, const siginfo_t *info, const as_target *t)
{
	pid_t self = as_target_pid(t);
	pm_exception *e = &r->exception;
	pm_arena *a = r->arena;
	const pm_signal_info *s = pmi_signal_by_number(PM_OS_LINUX, sig);
	const pm_si_code_info *c = pmi_si_code_by_number(sig, info->si_code);
	bool has_addr = has_fault_address(sig, info);
	uint64_t addr = (uint64_t)(uintptr_t)info->si_addr;

	e->type = s ? s->mach_type : "EXC_CRASH";
	e->signal_name = s ? s->name : NULL;
	e->signal = sig;
	e->has_si_code = true;
	e->si_code = info->si_code;
	e->has_address = has_addr;
	e->address = has_addr ? addr : 0;
	if (has_addr && c && c->subtype[0]) {
		char prefix[64];
		as_strlcpy(prefix, c->subtype, sizeof prefix);
		as_strlcat(prefix, " at ", sizeof prefix);
		e->subtype = as_arena_addr(a, prefix, addr);
	}
	e->codes = codes_text(a, c, info->si_code, has_addr, addr);
	/* As Apple notes abort() and other self-terminations; a SIGABRT another process sent is not one. */
	if (sig == SIGABRT && (from_kernel(info) || info->si_pid == self))
		e->note = "EXC_CORPSE_NOTIFY";
	e->term_namespace = "SIGNAL";
	e->has_term_code = true;
	e->term_code = (uint64_t)sig;
	e->term_indicator = indicator(a, s, sig);
	fill_terminator(e, a, f, sig, info, t, self);
}
