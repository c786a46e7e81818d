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

size_t
as_altstack_map_size(void)
{
	return stack_size + page_size;
}

bool
as_altstack_make(void **made, stack_t *now)
{
	*made = NULL;
	if (as_sys_sigaltstack(NULL, now) == 0 && !(now->ss_flags & SS_DISABLE)) {
		as_altstack_known_add(as_sys_gettid());
		return true; /* the thread has one (ours or the app's) */
	}
	if (!stack_size)
		return false;
	size_t size = as_altstack_map_size();
	char *map = as_sys_map(size, MAP_NORESERVE);
	if (!map)
		return false;
	/* The guard page below the stack turns an overflow of the handler
	 * itself into a clean fault instead of silent corruption. */
	as_sys_protect(map, page_size, PROT_NONE);
	stack_t ss = { .ss_sp = map + page_size, .ss_size = stack_size, .ss_flags = 0 };
	if (as_sys_sigaltstack(&ss, NULL) != 0) {
		as_sys_unmap(map, size);
		return false;
	}
	*made = map;
	*now = ss;
	as_altstack_known_add(as_sys_gettid());
	return true;
}

void
as_altstack_on_setup(void *uctx)
{
	/* sigreturn restores the alternate stack saved in the signal frame:
	 * record the new one there, or leaving the handler would undo it. */
	void *made;
	stack_t now;
	if (as_altstack_make(&made, &now))
		((ucontext_t *)uctx)->uc_stack = now;
}
