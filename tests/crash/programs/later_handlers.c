/* Run under the preload library (it links no postmortem): the handlers it
 * sets after postmortem's install are what it sees, and an ignored signal
 * raised stays ignored.  Exits 0, or the number of the check that failed. */
#include <signal.h>
#include <string.h>

int
main(void)
{
	struct sigaction seen, ignore;
	/* Without postmortem, a fatal signal's handler is SIG_DFL at start. */
	if (sigaction(SIGSEGV, NULL, &seen) != 0 || seen.sa_handler != SIG_DFL || (seen.sa_flags & SA_SIGINFO))
		return 1;
	memset(&ignore, 0, sizeof ignore);
	ignore.sa_handler = SIG_IGN;
	if (sigaction(SIGTRAP, &ignore, NULL) != 0 || sigaction(SIGTRAP, NULL, &seen) != 0 || seen.sa_handler != SIG_IGN)
		return 2;
	raise(SIGTRAP);
	return 0;
}
