/*
 * The app's own SIGSEGV handler (set before pm_install) fixes a fault by
 * returning: the first time it returns without fixing anything, so the
 * same fault comes straight back; the second time it makes the page
 * writable.  Then the app aborts.  The repeated fault is the handler's
 * business: two reports (SIGSEGV once, SIGABRT), not three.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "postmortem.h"
#include "sample.h"

static char *page;
static volatile int calls;

static void
fixing_handler(int sig)
{
	(void)sig;
	if (++calls == 2)
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

SAMPLE_FRAME static void
write_to_protected_page(void)
{
	*(volatile char *)page = 1;
}

int
main(void)
{
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 3;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fixing_handler;
	sigaction(SIGSEGV, &sa, NULL);
	if (pm_install(NULL) != 0)
		return 2;
	write_to_protected_page();
	if (calls != 2)
		return 3;
	abort();
}
