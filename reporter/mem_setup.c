/*
 * mem_setup.c — choose how the crash handler reads memory (as_mem.c), once, at
 * install.  NOT AS-safe.
 */
#include <fcntl.h>
#include <unistd.h>

#include "as_mem.h"

static int pipe_fds[2] = { -1, -1 };

bool
pmi_as_mem_setup(void)
{
	as_mem_use_pipe(-1, -1);
	/* Opened even when process_vm_readv works: a seccomp filter installed
	 * later may deny it, and a capture then falls back to the pipe. */
	if (pipe_fds[0] < 0 && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return as_mem_probe();
	as_mem_fallback_pipe(pipe_fds[0], pipe_fds[1]);
	if (as_mem_probe())
		return true;
	as_mem_use_pipe(pipe_fds[0], pipe_fds[1]);
	return as_mem_probe();
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
