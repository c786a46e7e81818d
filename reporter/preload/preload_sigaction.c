/*
 * preload_sigaction.c — libpostmortem-preload.so's sigaction and signal:
 * handlers the program installs later, for the signals postmortem owns, go
 * behind postmortem's instead of replacing it (as_interpose.c says why and
 * how).  Both may run in a signal handler (Go puts SIG_DFL back in its own
 * before it dies): past the setup they call only as_interpose.c and libc's
 * sigaction or signal — and go_text.c, once, for the first function handler
 * recorded, which runtimes install at their start, not in a handler.
 *
 * The library's own calls (pm_install, and the handler putting the previous
 * handlers back before the process dies) bind here too, being in the same
 * library: they are told apart by where they return to, and go straight to
 * the next sigaction (libc's).  Go's runtime (runtime/cgo's
 * x_cgo_sigaction) and Python call sigaction; glibc's signal() calls its
 * own internal copy, so it is interposed too.
 */
#include "preload_sigaction.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "as_handler.h"
#include "install.h"

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t signal_fn(int, sighandler_t);

static sigaction_fn *next_sigaction;
static signal_fn *next_signal;
static uintptr_t own_lo, own_hi; /* this library's code */

static void
find_next(void)
{
	void *sym = dlsym(RTLD_NEXT, "sigaction");
	memcpy(&next_sigaction, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
	sym = dlsym(RTLD_NEXT, "signal");
	memcpy(&next_signal, &sym, sizeof sym);
}

static int
find_own_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t self = (uintptr_t)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= lo && self - lo < ph->p_memsz) {
			own_lo = lo;
			own_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

void
pmi_preload_sigaction_setup(void)
{
	as_interpose_start();
	find_next();
	dl_iterate_phdr(find_own_code, (void *)(uintptr_t)&pmi_preload_sigaction_setup);
}

/* A handler recorded beside ours: its mask is the one postmortem's
 * registration asks of the kernel (as_fatal_action). */
static void
recorded(int sig, const struct sigaction *act)
{
	struct sigaction ours;
	if (!act)
		return;
	pmi_go_text_note(act);
	if (as_fatal_action(sig, act, &ours))
		next_sigaction(sig, &ours, NULL);
}

int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	uintptr_t from = (uintptr_t)__builtin_return_address(0);
	bool ours = from >= own_lo && from < own_hi;
	if (!ours && as_interpose_sigaction(sig, act, old)) {
		recorded(sig, act);
		return 0;
	}
	/* Before the setup (another library's constructor), nothing is ours yet. */
	if (!next_sigaction)
		find_next();
	return next_sigaction(sig, act, old);
}

/* glibc's signal(): BSD semantics, the signal blocked while its handler runs,
 * interrupted calls restarted. */
sighandler_t
signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	sigaddset(&act.sa_mask, sig);
	if (as_interpose_sigaction(sig, &act, &old)) {
		recorded(sig, &act);
		return old.sa_handler;
	}
	if (!next_signal)
		find_next();
	return next_signal(sig, handler);
}
