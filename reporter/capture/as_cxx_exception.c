/*
 * as_cxx_exception.c — AS-SAFE: the C++ exception a crashed thread died of,
 * from what the __cxa_throw hook (cxx_throw.c) recorded when it was thrown:
 * "terminating due to uncaught exception of type T: what()" for Application
 * Specific Information, and the throw site's backtrace as the Last Exception
 * Backtrace.
 *
 * Only when the crashed thread's stack still runs through the hook: an
 * uncaught exception ends in std::terminate called from within __cxa_throw,
 * while a caught one left it long ago (its record is just the thread's last
 * throw, not why it died).  A class type is written as "_Z" and its mangled
 * name, a mangled name any demangler reads ("_ZSt13runtime_error" is
 * std::runtime_error): the crash path cannot demangle (that allocates), so
 * show, explain and symbolicate do it when they print.  Other types keep
 * their bare encoding ("i" for int, "PKc" for const char *).
 */
#include "as_cxx_exception.h"
#include "model.h"

#include <string.h>

#include "as_memory.h"
#include "as_unwind.h"
#include "cxx_throw.h"

pm_cxx_throw as_cxx_throws[PM_CXX_SLOTS];
_Atomic uintptr_t as_cxx_hook_lo, as_cxx_hook_hi;

static const char prefix[] = "terminating due to uncaught exception of type ";

/* The slot of tid's last throw when its thread is inside the hook, else NULL. */
static const pm_cxx_throw *
dying_of(const pm_report *r, pid_t tid)
{
	uintptr_t lo = atomic_load(&as_cxx_hook_lo), hi = atomic_load(&as_cxx_hook_hi);
	int32_t k = pm_report_crashed_thread(r);
	if (lo == hi || k < 0 || tid <= 0)
		return NULL;
	const pm_thread *t = &r->threads[k];
	bool inside = false;
	for (uint32_t i = 0; t->frames && i < t->frame_count && !inside; i++) {
		uint64_t a = pm_frame_lookup_address(&t->frames[i], i);
		inside = a >= lo && a < hi;
	}
	for (uint32_t i = 0; inside && i < PM_CXX_SLOTS; i++)
		if (atomic_load(&as_cxx_throws[i].tid) == tid)
			return &as_cxx_throws[i];
	return NULL;
}

size_t
as_cxx_exception_text(const pm_report *r, pid_t tid, char *buf, size_t cap)
{
	const pm_cxx_throw *s = dying_of(r, tid);
	if (!s || cap == 0)
		return 0;
	uint32_t seq = atomic_load(&s->seq);
	buf[0] = '\0';
	as_strlcat(buf, prefix, cap);
	/* A class's <name>: a length-prefixed identifier, N...E (nested), S... (std::), Z...E (local).
	 * The hook's strings always end within their arrays: the last byte is only ever a NUL. */
	char c = s->type[0];
	if ((c >= '0' && c <= '9') || c == 'N' || c == 'S' || c == 'Z')
		as_strlcat(buf, "_Z", cap);
	size_t n = as_strlcat(buf, s->type, cap);
	if (s->has_what) {
		as_strlcat(buf, ": ", cap);
		size_t from = strlen(buf);
		n = as_strlcat(buf, s->what, cap);
		/* One line: what() may hold newlines, ASI lines are split at them. */
		for (size_t i = from; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = ' ';
		if (s->what_cut)
			n = as_strlcat(buf, " [truncated]", cap);
	}
	if ((seq & 1) || seq != atomic_load(&s->seq))
		n = as_strlcat(buf, " [being written]", cap);
	return n;
}

void
as_fill_last_exception(pm_report *r, const pm_as_images *im, pid_t tid)
{
	const pm_cxx_throw *s = dying_of(r, tid);
	uint32_t n = s ? s->frame_count : 0;
	if (n > PM_CXX_FRAMES)
		n = PM_CXX_FRAMES;
	pm_frame *f = n ? pmi_arena_alloc(r->arena, n * sizeof *f, _Alignof(pm_frame)) : NULL;
	if (!f)
		return;
	for (uint32_t i = 0; i < n; i++) {
		f[i] = (pm_frame){ .address = s->frames[i], .how = PM_HOW_CFI };
		const pm_as_image *ai = as_image_for(im, pm_frame_lookup_address(&f[i], i));
		f[i].image = ai ? (int32_t)ai->model_index : -1;
	}
	r->last_exception_backtrace = f;
	r->leb_count = n;
}
