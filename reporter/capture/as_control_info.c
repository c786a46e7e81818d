/*
 * as_control_info.c — AS-SAFE: the siginfo of a tagged control signal (see
 * as_control_info.h), which the freeze, the watch's probe and ordinary
 * code (control_send.c) send alike.
 */
#include "as_control_info.h"

#include <string.h>

void
as_control_info(siginfo_t *info, int sig, int tag, pid_t pid, uid_t uid)
{
	memset(info, 0, sizeof *info);
	info->si_signo = sig;
	info->si_code = SI_QUEUE;
	info->si_pid = pid;
	info->si_uid = uid;
	info->si_value.sival_int = tag;
}
