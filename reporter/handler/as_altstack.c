/*
 * as_altstack.c — AS-SAFE: alternate signal stacks made on the signal path
 * (see as_altstack.h).  Raw system calls only (as_sys.c): no malloc, no
 * thread-specific data, whose first use on a thread may allocate.
 */
#include "as_altstack.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "as_memory.h"

/* Set at install: in a page it writes anyway (start_data.h). */
PM_START_DATA static size_t stack_size, page_size, frame_bytes;

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
 * (docs/architecture.md, "Stacks of started threads").  Written now, from the thread's own
 * start, the pages the freeze handler uses are there when it runs.  There,
 * a page the kernel first writes costs another few microseconds even when
 * the thread wrote it: make_new has the kernel write the top page too (the
 * thread's previous stack, which sigaltstack reports, is stored there).
 */
static void
warm_top(char *top)
{
	for (size_t off = page_size; off - page_size < frame_bytes && off <= stack_size; off += page_size)
		*(volatile char *)(top - off) = 0;
}

/* The calling thread, tid (0: not to be recorded), holds cur, a stack of
 * its own or the app's: note it. */
static bool
held(const stack_t *cur, pid_t tid)
{
	if (cur->ss_flags & SS_DISABLE)
		return false;
	as_altstack_known_add(tid);
	return true;
}

static bool
make_new(void **made, stack_t *now, as_altstack_for who, pid_t tid, void *reuse)
{
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
	stack_t *old_at_top = who == AS_ALTSTACK_STARTED ? (stack_t *)(map + size) - 1 : NULL;
	if (as_sys_sigaltstack(&ss, old_at_top) != 0) {
		if (!reuse)
			as_sys_unmap(map, size);
		return false;
	}
	*made = map;
	*now = ss;
	if (who == AS_ALTSTACK_STARTED)
		warm_top(map + size);
	as_altstack_known_add(tid);
	return true;
}

bool
as_altstack_make(void **made, stack_t *now, as_altstack_for who, void *reuse)
{
	*made = NULL;
	pid_t tid = who == AS_ALTSTACK_INSTALLER ? 0 : as_sys_gettid();
	if (as_sys_sigaltstack(NULL, now) == 0 && held(now, tid))
		return true;
	return make_new(made, now, who, tid, reuse);
}

void
as_altstack_on_setup(pid_t self, void *uctx)
{
	/* The signal frame holds the thread's stack as it was (a query less
	 * per thread at install), and sigreturn restores it from there:
	 * record the new one there, or leaving the handler would undo it. */
	ucontext_t *uc = uctx;
	void *made;
	stack_t now;
	if (!held(&uc->uc_stack, self) && make_new(&made, &now, AS_ALTSTACK_EXISTING, self, NULL))
		uc->uc_stack = now;
}
