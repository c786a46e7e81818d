/*
 * control_send.c — tagged control signals to our own threads (control_send.h).
 */
#include "control_send.h"

#include <unistd.h>

#include "as_capture.h"
#include "as_memory.h"

void
pmi_control_info(siginfo_t *info, int sig, int tag)
{
	as_control_info(info, sig, tag, getpid(), getuid());
}

long
pmi_control_send(pid_t pid, pid_t tid, const siginfo_t *info)
{
	return as_sys_tgsigqueueinfo(pid, tid, info->si_signo, info);
}
