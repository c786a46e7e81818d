/*
 * control_send.c — tagged control signals to our own threads (control_send.h).
 */
#include "control_send.h"

#include <string.h>
#include <unistd.h>

#include "as_sys.h"

void
pmi_control_info(siginfo_t *info, int sig, int tag)
{
	memset(info, 0, sizeof *info);
	info->si_signo = sig;
	info->si_code = SI_QUEUE;
	info->si_pid = getpid();
	info->si_uid = getuid();
	info->si_value.sival_int = tag;
}

long
pmi_control_send(pid_t pid, pid_t tid, const siginfo_t *info)
{
	return as_sys_tgsigqueueinfo(pid, tid, info->si_signo, info);
}
