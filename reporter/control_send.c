/*
 * control_send.c — a tagged control signal to one thread (control_send.h).
 */
#include "control_send.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "as_sys.h"

long
pmi_control_send(pid_t tid, int sig, int tag)
{
	siginfo_t info;
	memset(&info, 0, sizeof info);
	info.si_signo = sig;
	info.si_code = SI_QUEUE;
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value.sival_int = tag;
	return as_sys_tgsigqueueinfo(info.si_pid, tid, sig, &info);
}
