/*
 * mem_setup.c — prepare the crash handler's fallback for reading memory
 * (as_mem.c) at install: the pipe.  NOT AS-safe.
 */
#include <fcntl.h>
#include <unistd.h>

#include "as_mem.h"

static int pipe_fds[2] = { -1, -1 };

bool
pmi_as_mem_setup(void)
{
	as_mem_use_pipe(-1, -1);
	/* Only the fallback is prepared: every capture and live backtrace
	 * probes process_vm_readv first (as_mem_cache_reset) and turns to the
	 * pipe when a sandbox denies it, whether from the start or later. */
	if (pipe_fds[0] < 0 && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return false;
	as_mem_fallback_pipe(pipe_fds[0], pipe_fds[1]);
	return true;
}

void
pmi_as_mem_teardown(void)
{
	as_mem_use_pipe(-1, -1);
	as_mem_fallback_pipe(-1, -1);
	for (int i = 0; i < 2; i++) {
		if (pipe_fds[i] >= 0)
			close(pipe_fds[i]);
		pipe_fds[i] = -1;
	}
}
