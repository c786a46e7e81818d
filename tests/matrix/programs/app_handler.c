/*
 * The app's own SIGSEGV handler and postmortem, by MODE:
 *
 *   recovers  set before pm_install, it recovers from two faults with
 *             siglongjmp; then the app aborts.  The handler is given each
 *             fault first and resolves it: no report but the abort's; dies
 *             of SIGABRT.
 *   returns   set before pm_install, it returns: the first time without
 *             fixing anything (the same fault comes straight back), the
 *             second time after making the page writable; then the app
 *             aborts.  One report (SIGABRT).
 *   aborts    set before pm_install, it calls abort() (after logging, say):
 *             it gave up on the fault — one report (SIGSEGV, the fault),
 *             and the process dies of SIGABRT as it would have.
 *   after     set after pm_install, it hands each fault on to the handler it
 *             replaced (postmortem's), as a well-behaved library does: one
 *             report, dies of SIGSEGV.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "postmortem.h"
#include "sample.h"

static sigjmp_buf recover;
static char *page;
static volatile int calls;
static struct sigaction replaced;

static void
recovering_handler(int sig)
{
	siglongjmp(recover, sig);
}

static void
fixing_handler(int sig)
{
	(void)sig;
	if (++calls == 2)
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

static void
aborting_handler(int sig)
{
	(void)sig;
	abort();
}

static void
chaining_handler(int sig, siginfo_t *info, void *uctx)
{
	replaced.sa_sigaction(sig, info, uctx);
}

SAMPLE_FRAME static int
fault_and_recover(void)
{
	if (sigsetjmp(recover, 1) != 0)
		return 1;
	return *sample_null;
}

SAMPLE_FRAME static void
write_to_protected_page(void)
{
	*(volatile char *)page = 1;
}

SAMPLE_FRAME static int
crash_after_app_handler(void)
{
	return *sample_null;
}

static int
handler_then_postmortem(void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	return sigaction(SIGSEGV, &sa, NULL) != 0 || pm_install(NULL) != 0;
}

static int
postmortem_then_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = chaining_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	return pm_install(NULL) != 0 || sigaction(SIGSEGV, &sa, &replaced) != 0 || !(replaced.sa_flags & SA_SIGINFO);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "recovers") == 0) {
		if (handler_then_postmortem(recovering_handler) != 0)
			return 2;
		if (fault_and_recover() != 1 || fault_and_recover() != 1)
			return 3;
		abort();
	}
	if (strcmp(mode, "returns") == 0) {
		page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED || handler_then_postmortem(fixing_handler) != 0)
			return 2;
		write_to_protected_page();
		if (calls != 2)
			return 3;
		abort();
	}
	if (strcmp(mode, "aborts") == 0) {
		if (handler_then_postmortem(aborting_handler) != 0)
			return 2;
		return crash_after_app_handler();
	}
	if (strcmp(mode, "after") == 0) {
		if (postmortem_then_handler() != 0)
			return 2;
		return crash_after_app_handler();
	}
	return 2;
}
