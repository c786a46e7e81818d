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

static size_t stack_size, page_size;

void
as_altstack_set_geometry(size_t size, size_t page)
{
	stack_size = size;
	page_size = page;
}

bool
as_altstack_make(pm_as_stack **made, stack_t *now)
{
	*made = NULL;
	if (as_sys_sigaltstack(NULL, now) == 0 && !(now->ss_flags & SS_DISABLE)) {
		as_altstack_known_add(as_sys_gettid());
		return true; /* the thread has one (ours or the app's) */
	}
	if (!stack_size)
		return false;
	size_t size = stack_size + page_size;
	char *map = as_sys_map(size, MAP_NORESERVE);
	if (!map)
		return false;
	/* The record sits at the top of the mapping, above the stack the
	 * kernel is given: one mapping per thread, not two. */
	pm_as_stack *s = (pm_as_stack *)(map + size - AS_STACK_RECORD_ROOM);
	s->map = map;
	s->size = size;
	/* The guard page below the stack turns an overflow of the handler
	 * itself into a clean fault instead of silent corruption. */
	as_sys_protect(map, page_size, PROT_NONE);
	stack_t ss = { .ss_sp = map + page_size, .ss_size = stack_size - AS_STACK_RECORD_ROOM, .ss_flags = 0 };
	if (as_sys_sigaltstack(&ss, NULL) != 0) {
		as_sys_unmap(map, size);
		return false;
	}
	*made = s;
	*now = ss;
	as_altstack_known_add(as_sys_gettid());
	return true;
}

void
as_altstack_on_setup(void *uctx)
{
	/* sigreturn restores the alternate stack saved in the signal frame:
	 * record the new one there, or leaving the handler would undo it. */
	pm_as_stack *made;
	stack_t now;
	if (as_altstack_make(&made, &now))
		((ucontext_t *)uctx)->uc_stack = now;
}
