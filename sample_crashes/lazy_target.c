/* The library unwind_lazy_bind calls into through a lazily bound PLT slot.
 * lazy_target is an ifunc, so binding it runs our resolver inside the
 * dynamic linker (_dl_runtime_resolve → _dl_fixup → resolver); the resolver
 * says so and waits there while the program's worker thread crashes. */
#include <unistd.h>

#include "lazy_target.h"

volatile int lazy_resolving;

static int
answer(void)
{
	return 42;
}

static int (*resolve_lazy_target(void))(void)
{
	lazy_resolving = 1;
	/* Until the crash ends the process; the flag is never cleared. */
	while (lazy_resolving)
		pause();
	return answer;
}

int lazy_target(void) __attribute__((ifunc("resolve_lazy_target")));
