/* The app had its own SIGSEGV handler before pm_install: after the report,
 * postmortem must hand the signal on to it (it writes a marker, exits 42). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;

static void
previous_handler(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	const char *path = getenv("MARKER");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
	/* What the previous handler sees must be the original fault. */
	if (fd >= 0 && sig == SIGSEGV && info->si_code == SEGV_MAPERR && info->si_addr == NULL)
		(void)!write(fd, "original siginfo\n", 17);
	_exit(42);
}

int
main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = previous_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (pm_install(NULL) != 0)
		return 2;
	return *null_pointer;
}
