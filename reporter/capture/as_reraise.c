/*
 * as_reraise.c — AS-SAFE: the original fault behind a re-raise.
 *
 * A handler installed after postmortem's, in an app that links
 * libpostmortem (nothing there keeps postmortem's in front: as_interpose.c
 * is the preload library's), catches the fault first, does its work
 * (Python's faulthandler prints a traceback), puts postmortem's back and
 * raises the signal again: postmortem sees SI_TKILL and no address.  But
 * that handler ran on the kernel's signal frame of the original fault, and
 * the crashed thread's walk went through it: the frame after the signal
 * trampoline was restored from the saved context (PM_HOW_CONTEXT).  The
 * signal frame whose saved pc is that frame's lies above the re-raise on
 * the stack, and says what the fault was (original_fault).  The report
 * keeps the re-raise's registers and backtrace, which show the handler.
 */
#include <string.h>

#include "as_images.h"
#include "as_memory.h"
#include "as_report.h"
#include "as_unwind.h"
#include "model.h"

/* The handler's frames and its signal frame lie within this much stack above the re-raise. */
enum { SCAN_BYTES = 64 * 1024 };

/* The first frame restored from a signal context, past the re-raise and the
 * trampoline; -1 if none. */
static int
context_frame(const pm_thread *t)
{
	for (uint32_t i = 2; i < t->frame_count; i++)
		if (t->frames[i].how == PM_HOW_CONTEXT)
			return (int)i;
	return -1;
}

/* The kernel's signal frame, upward from sp, whose saved pc is pc: its
 * address, or 0. */
static uint64_t
find_sigframe(const pm_mem *mem, uint64_t sp, uint64_t pc, mcontext_t *mc)
{
	uint64_t lo = sp & ~(uint64_t)(sizeof(uint64_t) - 1);
	for (uint64_t at = lo; at - lo < SCAN_BYTES; at += sizeof(uint64_t)) {
		/* Past the top of the stack nothing further is readable. */
		if (!pm_mem_read(mem, as_arch_sigframe_mcontext(at), mc, sizeof *mc))
			return 0;
		if (as_arch_pc(mc) == pc)
			return at;
	}
	return 0;
}

/* The original fault.  A SIGSEGV page fault from the registers the kernel
 * saved: the address the CPU reported, and, as the kernel decides, whether
 * anything is mapped there (SEGV_ACCERR) or not (SEGV_MAPERR).  Otherwise
 * the frame's siginfo, which the kernel wrote only if the handler asked
 * for one (SA_SIGINFO; faulthandler does not). */
static bool
original_fault(const as_capture_ctx *c, uint64_t frame, const mcontext_t *mc, siginfo_t *out)
{
	uint64_t addr;
	if (c->signal == SIGSEGV && as_arch_fault_address(mc, &addr)) {
		memset(out, 0, sizeof *out);
		out->si_signo = SIGSEGV;
		out->si_code = as_map_for(c->images, addr) ? SEGV_ACCERR : SEGV_MAPERR;
		out->si_addr = (void *)(uintptr_t)addr;
		return true;
	}
	return pm_mem_read(c->mem, as_arch_sigframe_siginfo(frame), out, sizeof *out) && out->si_signo == c->signal &&
	       out->si_code > 0 && out->si_errno == 0;
}

/* "Re-raised by the process itself: … (frames 0-1 of the crashed thread; the fault is frame 3, …)" */
static const char *
description(pm_arena *a, int context)
{
	char buf[256];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	pmi_out_str(&o, "Re-raised by the process itself: a signal handler installed after postmortem's caught "
	                "this fault first and raised it again (frames 0-");
	pmi_out_i64(&o, context - 2);
	pmi_out_str(&o, " of the crashed thread; the fault is frame ");
	pmi_out_i64(&o, context);
	pmi_out_str(&o, ", past the signal frame)");
	return pmi_arena_strndup(a, buf, o.len);
}

void
as_fill_reraised(const as_capture_ctx *c)
{
	pm_report *r = c->report;
	int32_t k = r->exception.triggered_thread;
	if (!c->info || !as_is_reraised_fault(c->signal, c->info, &c->target) || k < 0 ||
	    (uint32_t)k >= r->thread_count)
		return;
	const pm_thread *t = &r->threads[k];
	int i = context_frame(t);
	mcontext_t mc;
	siginfo_t original;
	uint64_t frame = i < 0 ? 0 : find_sigframe(c->mem, as_arch_sp(c->mc), t->frames[i].address, &mc);
	if (!frame || !original_fault(c, frame, &mc, &original))
		return;
	as_fill_exception(r, c->facts, c->signal, &original, &c->target);
	r->exception.term_description = description(r->arena, i);
}
