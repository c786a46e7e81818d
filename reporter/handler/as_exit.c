/*
 * as_exit.c — AS-SAFE: _exit, which libpostmortem and the preload library
 * define, found before libc's.
 *
 * A language runtime's signal handler that postmortem gave a fault first
 * may end the process with _exit once it gives up on it (an app's handler
 * that logs and exits): the fault is reported before the process ends
 * (as_on_exit).  Anywhere else this is libc's _exit: one check of a word,
 * then the system call.  Either way the run's session record gets its end
 * (as_session.c), as exit() gives it through its hook: a direct _exit is a
 * normal end too.
 */
#include <unistd.h>

#include "as_chain.h"
#include "as_handler.h"
#include "as_memory.h"
#include "as_session.h"

void
_exit(int status)
{
	if (as_chain_busy())
		as_on_exit(status);
	as_session_end(status);
	as_sys_exit(status);
}
