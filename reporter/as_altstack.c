/*
 * as_altstack.c — AS-SAFE: alternate signal stacks made on the signal path
 * (see as_altstack.h).  Raw system calls only (as_sys.c): no malloc, no
 * thread-specific data, whose first use on a thread may allocate.
 */
#include "as_altstack.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "as_sys.h"

static size_t stack_size, page_size, frame_bytes;

void
as_altstack_set_geometry(size_t size, size_t page, size_t frame)
{
	stack_size = size;
	page_size = page;
	frame_bytes = frame;
}

size_t
as_altstack_map_size(void)
{
	return stack_size + page_size;
}

/*
 * A signal's frame (the registers with their whole xsave area, about 3.4 KiB
 * with AVX-512) goes at the top of the stack.  The first frame on a fresh
 * page faults it in from inside the kernel, and on a paravirtualized guest
 * that costs about 20 us: at crash time, every frozen thread paid it once
 * (docs/architecture.md, "The freeze").  Written now, from the thread's own
 * start, the pages the freeze handler uses are there when it runs.
 */
static void
warm_top(char *top)
{
	for (size_t off = page_size; off - page_size < frame_bytes && off <= stack_size; off += page_size)
		*(volatile char *)(top - off) = 0;
}

bool
as_altstack_make(void **made, stack_t *now, bool installer, void *reuse)
{
	*made = NULL;
	if (as_sys_sigaltstack(NULL, now) == 0 && !(now->ss_flags & SS_DISABLE)) {
		if (!installer)
			as_altstack_known_add(as_sys_gettid());
		return true; /* the thread has one (ours or the app's) */
	}
	if (!stack_size)
		return false;
	size_t size = as_altstack_map_size();
	char *map = reuse ? reuse : as_sys_map(size, MAP_NORESERVE);
	if (!map)
		return false;
	/* The guard page below the stack turns an overflow of the handler
	 * itself into a clean fault instead of silent corruption. */
	if (!reuse)
		as_sys_protect(map, page_size, PROT_NONE);
	stack_t ss = { .ss_sp = map + page_size, .ss_size = stack_size, .ss_flags = 0 };
	if (as_sys_sigaltstack(&ss, NULL) != 0) {
		if (!reuse)
			as_sys_unmap(map, size);
		return false;
	}
	*made = map;
	*now = ss;
	if (!installer) {
		warm_top(map + size);
		as_altstack_known_add(as_sys_gettid());
	}
	return true;
}

void
as_altstack_on_setup(void *uctx)
{
	/* sigreturn restores the alternate stack saved in the signal frame:
	 * record the new one there, or leaving the handler would undo it. */
	void *made;
	stack_t now;
	if (as_altstack_make(&made, &now, false, NULL))
		((ucontext_t *)uctx)->uc_stack = now;
}
