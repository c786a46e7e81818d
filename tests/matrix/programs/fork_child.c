/*
 * A child forked after pm_install crashes: it gets its own report (its own
 * pid, its own thread).  The parent then dies of the same signal, without
 * postmortem, so the test sees how the child died.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "postmortem.h"
#include "sample.h"

SAMPLE_FRAME static int
crash_in_child(void)
{
	return *sample_null;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	pid_t pid = fork();
	if (pid == 0)
		return crash_in_child();
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return 3;
	pm_uninstall();
	signal(WTERMSIG(status), SIG_DFL);
	raise(WTERMSIG(status));
	return 4;
}
